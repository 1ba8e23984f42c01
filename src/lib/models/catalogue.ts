/**
 * THE algorithm catalogue: the one source of truth for every algorithm the benchmark knows. Presets,
 * the planner, the selector groups of the CLI and URL, model options (URL, CLI, record), the record
 * extras, the chart palette and labels, the cost model and the contract tests all read it.
 *
 * Adding an algorithm = its estimator file + one entry in CATALOGUE (+ its own parity test).
 * Entries load their estimator lazily, so a page or worker only pulls in the code it runs; this
 * module itself imports no estimator code (and nothing from suite/), so the page can read it freely.
 */
import type { ProtocolMode } from '../types.ts';
import { COST_UNITS, seconds, type CellShape } from './cost.ts';
import { deepFitSeconds } from './deep/cost.ts';
import { methodRecord, type DeepMethodId } from './deep/methods/registry.ts';
import type { Estimator, FitInfo } from './estimator.ts';
import {
  integerIn,
  interval,
  oneOf,
  paramProblem,
  ParamError,
  validateParams,
  type Constraint,
} from './params.ts';

/** The record's `algorithm.family`: a baseline, or the compute kind of an SSL method. */
export type AlgorithmFamily = 'statistical' | 'deep' | 'baseline';
/** What an algorithm is in the study: a supervised baseline (flat in t) or an SSL method. */
export type AlgorithmRole = 'baseline' | 'ssl';
/**
 * How it runs: 'statistical' (float64 CPU code; after a GPU crash it may move to WASM) or 'deep'
 * (tfjs training: the GPU lane when there is one, never moved to another backend on its own).
 */
export type AlgorithmCompute = 'statistical' | 'deep';
export type OptionValue = string | number | boolean;
export type ModelOptions = Readonly<Record<string, OptionValue>>;

/** One model option: its schema, its default per protocol mode and one line of documentation. */
export interface OptionSpec {
  constraint: Constraint;
  default: Readonly<Record<ProtocolMode, OptionValue>>;
  doc: string;
  /**
   * Set when the option is stored as a protocol option (PROTOCOL.md §10 `protocol.options`) rather
   * than in the plan's model options: its value then comes from `plan.options[protocolOption]`.
   */
  protocolOption?: string;
}

export type { CellShape } from './cost.ts';

export interface CreateContext {
  mode: ProtocolMode;
  /** Every option of the entry, resolved (defaults of the mode, then the plan's values). */
  options: ModelOptions;
}

export interface AlgorithmSpec {
  /** Short lower-case id: cell keys, URLs, CLI, records (e.g. 'lp'). */
  id: string;
  /** Full name (planner tooltips, docs). */
  title: string;
  /** Display name in charts and tables. */
  label: string;
  family: AlgorithmFamily;
  role: AlgorithmRole;
  compute: AlgorithmCompute;
  /** The family's preset it belongs to (baselines: the family they anchor). */
  suite: 'statistical' | 'deep';
  /** Preset id → position of the algorithm in that preset's list. */
  presets: Readonly<Record<string, number>>;
  /** Cheap enough for the classroom and the `fast` selector group. */
  fast: boolean;
  /** Chart colour (#rrggbb, ≥ 3:1 against both themes; distinct from every other entry). */
  color: string;
  options: Readonly<Record<string, OptionSpec>>;
  /** Extra fields of the record's `algorithm` section, taken from the fit's info(). */
  recordExtras?: (info: FitInfo) => Record<string, string | boolean>;
  /**
   * Seconds of one fit + predict on the reference machine (a 2-core x86 VM, tfjs wasm: models/cost.ts;
   * the deep family: models/deep/cost.ts). `options`: the entry's resolved model options, where the
   * cost depends on them (the deep family's size, steps and batch). suite/costModel.ts turns it into
   * work units and the device's calibration into the ETA, the pre-start estimate, longest-first
   * ordering and the watchdog: this is the one formula they use.
   */
  cost(shape: CellShape, options?: ModelOptions): number;
  /** PROTOCOL.md §9: the algorithm is fed the `graph` pool (a dense kernel over L ∪ U: LP, LS, TSVM, SSGMM). */
  graphPool?: boolean;
  create(ctx: CreateContext): Promise<Estimator>;
}

const same = (v: OptionValue) => ({ rsb: v, readme: v });

/** An entry as written: its role and suite; `compute` and `family` follow from them (complete()). */
type AlgorithmEntry = Omit<AlgorithmSpec, 'family' | 'compute'>;

const STATISTICAL: AlgorithmEntry[] = [
  {
    id: 'xgb',
    title: 'XGBoost (supervised baseline)',
    label: 'XGBoost',
    role: 'baseline',
    suite: 'statistical',
    presets: { classroom: 0, 'tabular-statistical': 0 },
    fast: true,
    color: '#7a7f8c',
    options: {
      nEstimators: {
        constraint: integerIn(1, 10_000),
        default: same(100),
        doc: 'Boosting rounds (xgboost n_estimators).',
      },
      maxDepth: { constraint: integerIn(1, 16), default: same(6), doc: 'Maximum tree depth (max_depth).' },
      learningRate: {
        constraint: interval(0, 1, 'right'),
        default: same(0.3),
        doc: 'Shrinkage η (learning_rate).',
      },
    },
    cost: seconds(COST_UNITS.xgb),
    async create({ options }) {
      const { GBDTClassifier } = await import('./statistical/gbdt.ts');
      return new GBDTClassifier(options);
    },
  },
  {
    id: 'ssgmm',
    title: 'Semi-supervised Gaussian mixture model (SSGMM)',
    label: 'Semi-supervised GMM',
    role: 'ssl',
    suite: 'statistical',
    presets: { classroom: 3, 'tabular-statistical': 1 },
    fast: true,
    color: '#2a9257',
    options: {
      tol: {
        constraint: interval(0, undefined, 'left'),
        default: same(1e-5),
        doc: 'Stop when every |Δα_c/α_c| ≤ tol.',
      },
      maxIter: { constraint: integerIn(1), default: same(300), doc: 'Maximum EM iterations.' },
      support: {
        constraint: oneOf('zero', 'ignore'),
        default: same('zero'),
        doc: "Density off a singular covariance's support: 'zero' (scipy ≥ 1.10) or 'ignore' (scipy ≤ 1.9).",
        protocolOption: 'ssgmmSupport',
      },
    },
    recordExtras: (info): Record<string, string> =>
      info.ssgmmSupport ? { ssgmmSupport: String(info.ssgmmSupport) } : {},
    cost: seconds(COST_UNITS.ssgmm),
    graphPool: true,
    async create({ options: { support, ...rest } }) {
      const { SSGMM } = await import('./statistical/ssgmm.ts');
      return new SSGMM({ ...rest, ssgmmSupport: support as 'zero' | 'ignore' });
    },
  },
  {
    id: 'tsvm',
    title: 'Transductive support vector machine (TSVM)',
    label: 'Transductive SVM',
    role: 'ssl',
    suite: 'statistical',
    presets: { 'tabular-statistical': 2 },
    fast: false,
    color: '#c8416b',
    options: {
      Cl: { constraint: interval(0, undefined, 'neither'), default: same(15), doc: 'C for labeled rows.' },
      Cu: {
        constraint: interval(0, undefined, 'neither'),
        default: same(1e-4),
        doc: 'Initial C for unlabeled rows (doubled each round up to Cl).',
      },
    },
    recordExtras: (info): Record<string, string> =>
      info.tsvm_multiclass ? { tsvm_multiclass: String(info.tsvm_multiclass) } : {},
    cost: seconds(COST_UNITS.tsvm),
    graphPool: true,
    async create({ options }) {
      const { TSVM } = await import('./statistical/tsvm.ts');
      return new TSVM(options);
    },
  },
  {
    id: 'lp',
    title: 'Label Propagation',
    label: 'Label Propagation',
    role: 'ssl',
    suite: 'statistical',
    presets: { classroom: 1, 'tabular-statistical': 3 },
    fast: true,
    color: '#3b6fd4',
    options: {
      gamma: {
        constraint: interval(0, undefined, 'left'),
        default: { rsb: 1, readme: 20 },
        doc: 'RBF width γ in exp(−γ‖x−x′‖²).',
      },
      maxIter: {
        constraint: integerIn(1),
        default: { rsb: 10_000, readme: 1000 },
        doc: 'Maximum iterations.',
      },
      tol: {
        constraint: interval(0, undefined, 'left'),
        default: same(1e-3),
        doc: 'Stop when Σ|F − F_prev| < tol.',
      },
    },
    cost: seconds(COST_UNITS.lp),
    graphPool: true,
    async create({ options }) {
      const { LabelPropagation } = await import('./statistical/labelPropagation.ts');
      return new LabelPropagation(options);
    },
  },
  {
    id: 'ls',
    title: 'Label Spreading',
    label: 'Label Spreading',
    role: 'ssl',
    suite: 'statistical',
    presets: { classroom: 2, 'tabular-statistical': 4 },
    fast: true,
    color: '#d9622b',
    options: {
      gamma: {
        constraint: interval(0, undefined, 'left'),
        default: { rsb: 1, readme: 20 },
        doc: 'RBF width γ in exp(−γ‖x−x′‖²).',
      },
      alpha: {
        constraint: interval(0, 1, 'neither'),
        default: same(0.2),
        doc: 'Clamping factor: the share of F taken from neighbours.',
      },
      maxIter: { constraint: integerIn(1), default: { rsb: 10_000, readme: 30 }, doc: 'Maximum iterations.' },
      tol: {
        constraint: interval(0, undefined, 'left'),
        default: same(1e-3),
        doc: 'Stop when Σ|F − F_prev| < tol.',
      },
    },
    cost: seconds(COST_UNITS.graph),
    graphPool: true,
    async create({ options }) {
      const { LabelSpreading } = await import('./statistical/labelSpreading.ts');
      return new LabelSpreading(options);
    },
  },
  {
    id: 'tritraining',
    title: 'Tri-Training',
    label: 'Tri-Training',
    role: 'ssl',
    suite: 'statistical',
    presets: { 'tabular-statistical': 5 },
    fast: false,
    color: '#8a5cd0',
    options: {
      maxIter: {
        constraint: integerIn(1),
        default: same(1000),
        doc: 'Safety cap on passes (the rule stops by itself).',
      },
      nEstimators: {
        constraint: integerIn(1, 10_000),
        default: same(100),
        doc: 'Boosting rounds of the XGBoost learner(s).',
      },
    },
    recordExtras: (info): Record<string, boolean> => (info.tt_restart ? { tt_restart: true } : {}),
    cost: seconds(COST_UNITS.tritraining),
    async create({ options: { nEstimators, ...rest } }) {
      const { TriTraining } = await import('./statistical/triTraining.ts');
      return new TriTraining({ ...rest, base: { nEstimators: nEstimators as number } });
    },
  },
  {
    id: 'assemble',
    title: 'Assemble (adaptive semi-supervised ensemble)',
    label: 'Assemble',
    role: 'ssl',
    suite: 'statistical',
    presets: { 'tabular-statistical': 6 },
    fast: false,
    color: '#16919f',
    options: {
      T: { constraint: integerIn(1, 10_000), default: same(30), doc: 'Maximum number of base learners.' },
      alpha: {
        constraint: interval(0, undefined, 'left'),
        default: same(1),
        doc: 'Scale of the margin in the resampling weights.',
      },
      beta: {
        constraint: interval(0, 1, 'both'),
        default: same(0.9),
        doc: 'Share of the initial weight on L.',
      },
      nNeighbors: {
        constraint: integerIn(1),
        default: same(3),
        doc: 'Neighbours of the initial pseudo-labels.',
      },
    },
    cost: seconds(COST_UNITS.assemble),
    async create({ options }) {
      const { Assemble } = await import('./statistical/assemble.ts');
      return new Assemble(options);
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Deep family (PROTOCOL.md §7.2–7.6): one FT-Transformer trainer (deep/trainer.ts), one method each.

type DeepId = DeepMethodId;

/** The options every deep entry takes (the loop's knobs a user tunes; §7.2 values by default). */
const DEEP_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  size: {
    constraint: oneOf('rsb', 'tiny'),
    default: same('rsb'),
    doc: "Network: 'rsb' (8 blocks × 192, ≈ 2.4 M parameters, §7.3) or 'tiny' (2 × 32, for classrooms and tests).",
  },
  steps: {
    constraint: integerIn(1, 1_000_000),
    default: { rsb: 1000, readme: 10_000 },
    doc: 'Optimiser steps S (§9: 1 000 in rsb, 10 000 in readme).',
  },
  batchL: {
    constraint: integerIn(1, 4096),
    default: same(64),
    doc: 'Labeled rows per step; the unlabeled batch is μ × this (§7.2: 64).',
  },
  lr: {
    constraint: interval(0, 1, 'right'),
    default: { rsb: 1e-4, readme: 5e-4 },
    doc: 'Learning rate (rsb: Adam, constant; readme: SGD, before the cosine).',
  },
  emaDecay: {
    constraint: interval(0, 1, 'left'),
    default: same(0.999),
    doc: 'Decay of the EMA shadow that predicts (§7.2: 0.999).',
  },
};

/** Seconds of a deep fit at the reference rate (deep/cost.ts), from the shape and the options. */
function deepCost(id: DeepId) {
  return (s: CellShape, o: ModelOptions = {}): number =>
    deepFitSeconds(
      id,
      { d: s.d, k: s.k, test: s.test, steps: Number(o.steps ?? (s.steps || 1000)) },
      { size: o.size === 'tiny' ? 'tiny' : 'rsb', batchL: Number(o.batchL ?? 64) },
    );
}

/**
 * A method's loss hyperparameters as model options (`fixmatch.threshold=0.9`), from its record in
 * deep/methods/registry.ts. μ stays the method's: the cost model counts its rows per step.
 */
function methodOptions(id: DeepId): Record<string, OptionSpec> {
  return Object.fromEntries(
    Object.entries(methodRecord(id).params)
      .filter(([k]) => k !== 'mu')
      .map(([k, spec]) => [k, { constraint: spec.constraint, default: spec.default, doc: spec.doc }]),
  );
}

/**
 * Steps between two loss reports of a deep fit: about 40 points on the live training chart for a
 * short loop (classroom-deep's 120 steps gave 3 points at the trainer's default of 25), never
 * sparser than every 25 steps. Not part of the record: it changes what is shown, not what is fitted.
 */
export function progressEveryFor(steps: number): number {
  return Math.min(25, Math.max(1, Math.round(steps / 40)));
}

function deepEntry(
  id: DeepId,
  title: string,
  label: string,
  color: string,
  presets: Record<string, number>,
): AlgorithmEntry {
  return {
    id,
    title,
    label,
    role: id === 'ftt' ? 'baseline' : 'ssl',
    suite: 'deep',
    presets,
    fast: false,
    color,
    options: { ...DEEP_OPTIONS, ...methodOptions(id) },
    // No extras: size, steps, batch, lr and EMA are in the record's `options` (resolved) and `hyper`
    // (the whole loop), the backend and precision in `env`, quirks in `protocol`, `init_seed` beside.
    cost: deepCost(id),
    async create({ mode, options }) {
      const { createDeepEstimator } = await import('./deep/deepEstimator.ts');
      const methodParams = Object.fromEntries(
        Object.keys(methodOptions(id)).map((k) => [k, options[k] as number]),
      );
      return createDeepEstimator(id, {
        mode,
        size: options.size as 'rsb' | 'tiny',
        steps: options.steps as number,
        progressEvery: progressEveryFor(options.steps as number),
        batchL: options.batchL as number,
        lr: options.lr as number,
        emaDecay: options.emaDecay as number,
        ...(Object.keys(methodParams).length ? { methodParams } : {}),
      });
    },
  };
}

/** §9's deep grid (`tabular-deep`) has eight; MeanTeacher is an extra (no published tabular rows, §7.4). */
const DEEP: AlgorithmEntry[] = [
  deepEntry('ftt', 'FT-Transformer (supervised baseline)', 'FT-Transformer', '#807018', {
    'classroom-deep': 0,
    'tabular-deep': 0,
  }),
  deepEntry('pseudolabel', 'Pseudo-Label', 'Pseudo-Label', '#986028', {
    'classroom-deep': 1,
    'tabular-deep': 1,
  }),
  deepEntry('pimodel', 'Π-Model', 'Π-Model', '#487800', { 'tabular-deep': 2 }),
  deepEntry('meanteacher', 'Mean Teacher', 'Mean Teacher', '#f838d0', { 'classroom-deep': 2 }),
  deepEntry('ict', 'Interpolation Consistency Training (ICT)', 'ICT', '#2098d8', { 'tabular-deep': 3 }),
  deepEntry('uda', 'Unsupervised Data Augmentation (UDA)', 'UDA', '#d80020', { 'tabular-deep': 4 }),
  deepEntry('fixmatch', 'FixMatch', 'FixMatch', '#889800', { 'classroom-deep': 3, 'tabular-deep': 5 }),
  deepEntry('flexmatch', 'FlexMatch', 'FlexMatch', '#f85860', { 'tabular-deep': 6 }),
  deepEntry('softmatch', 'SoftMatch', 'SoftMatch', '#c88000', { 'tabular-deep': 7 }),
];

/** The catalogue, in canonical order (planner rows, `all`, custom plans). */
/** The spec of an entry: `compute` is its suite's kind; `family` is 'baseline' for a baseline, else that kind. */
function complete(e: AlgorithmEntry): AlgorithmSpec {
  return { ...e, compute: e.suite, family: e.role === 'baseline' ? 'baseline' : e.suite };
}

const entries: AlgorithmSpec[] = [...STATISTICAL, ...DEEP].map(complete);

export const CATALOGUE: readonly AlgorithmSpec[] = entries;

export function algorithmIds(): string[] {
  return entries.map((a) => a.id);
}

export function findAlgorithm(id: string): AlgorithmSpec | undefined {
  return entries.find((a) => a.id === id);
}

export function getAlgorithm(id: string): AlgorithmSpec {
  const a = findAlgorithm(id);
  if (!a) throw new Error(`Unknown algorithm "${id}". Known algorithms: ${algorithmIds().join(', ')}.`);
  return a;
}

export function isBaselineAlgorithm(id: string): boolean {
  return findAlgorithm(id)?.role === 'baseline';
}

/**
 * Selector groups of the CLI and URL (`--algorithms statistical`): `statistical` and `deep` are the
 * families' presets (baselines included), `fast` the cheap ones, `baselines` the supervised anchors.
 * A group may be empty (e.g. `deep` before the deep family lands); it is still a known name.
 */
export function algorithmGroups(): Record<string, string[]> {
  return {
    statistical: entries.filter((a) => a.suite === 'statistical').map((a) => a.id),
    deep: entries.filter((a) => a.suite === 'deep').map((a) => a.id),
    fast: entries.filter((a) => a.fast).map((a) => a.id),
    baselines: entries.filter((a) => a.family === 'baseline').map((a) => a.id),
  };
}

/** The algorithms of a preset, in the preset's order. */
export function presetAlgorithms(preset: string): string[] {
  return entries
    .filter((a) => a.presets[preset] !== undefined)
    .sort((a, b) => a.presets[preset] - b.presets[preset])
    .map((a) => a.id);
}

/** Ids in catalogue order, then unknown ids (kept, sorted: validatePlan names them) — never dropped. */
export function orderAlgorithms(ids: readonly string[]): string[] {
  const known = algorithmIds();
  const set = new Set(ids);
  return [...known.filter((id) => set.has(id)), ...[...set].filter((id) => !known.includes(id)).sort()];
}

/** Display name for charts and tables; unknown ids (imported runs) are shown as they are. */
export function algorithmLabel(id: string): string {
  return findAlgorithm(id)?.label ?? id;
}

// ---------------------------------------------------------------------------------------------
// Model options

/** The default options of an entry under a mode (protocol-bound options included). */
export function defaultModelOptions(spec: AlgorithmSpec, mode: ProtocolMode): Record<string, OptionValue> {
  return Object.fromEntries(Object.entries(spec.options).map(([k, o]) => [k, o.default[mode]]));
}

/**
 * Every option of `spec`, resolved: the mode's defaults, then protocol-bound values from
 * `protocolOptions`, then `given` (the plan's values). Unknown keys and bad values throw ParamError.
 */
export function resolveModelOptions(
  spec: AlgorithmSpec,
  mode: ProtocolMode,
  given: ModelOptions | undefined,
  protocolOptions: object = {},
): Record<string, OptionValue> {
  const out = defaultModelOptions(spec, mode);
  for (const [key, o] of Object.entries(spec.options)) {
    const bound = o.protocolOption
      ? (protocolOptions as Record<string, unknown>)[o.protocolOption]
      : undefined;
    if (bound !== undefined) out[key] = bound as OptionValue;
  }
  if (given) {
    checkModelOptions(spec, given);
    Object.assign(out, given);
  }
  return out;
}

/** ParamError for an unknown option or a value outside its schema (sklearn-style message). */
export function checkModelOptions(spec: AlgorithmSpec, given: ModelOptions): void {
  const table = Object.fromEntries(Object.entries(spec.options).map(([k, o]) => [k, o.constraint]));
  for (const key of Object.keys(given)) if (!optionSpec(spec, key)) throw unknownOption(spec, key);
  validateParams(spec.id, table, given);
}

/**
 * The entry's option `key`, own keys only: options live on a plain object, where `constructor`
 * or `toString` would otherwise be found on Object.prototype and taken for an option.
 */
function optionSpec(spec: AlgorithmSpec, key: string): OptionSpec | undefined {
  return Object.hasOwn(spec.options, key) ? spec.options[key] : undefined;
}

function unknownOption(spec: AlgorithmSpec, key: string): ParamError {
  const known = Object.keys(spec.options);
  return new ParamError(
    `'${key}' is not an option of ${spec.id}. ${known.length ? `Options: ${known.join(', ')}.` : `${spec.id} has no options.`}`,
  );
}

/**
 * Options that differ from the mode's defaults (and from `reference`, a preset's own model options),
 * as `{ '<id>.<option>': value }` (for protocol.overrides).
 */
export function optionOverrides(
  spec: AlgorithmSpec,
  mode: ProtocolMode,
  resolved: ModelOptions,
  reference: ModelOptions = {},
): Record<string, OptionValue> {
  const defaults = { ...defaultModelOptions(spec, mode), ...reference };
  const out: Record<string, OptionValue> = {};
  for (const [k, v] of Object.entries(resolved)) {
    if (spec.options[k]?.protocolOption) continue; // recorded with the protocol options
    if (defaults[k] !== v) out[`${spec.id}.${k}`] = v;
  }
  return out;
}

/**
 * Parses `id.option=value` (the CLI's `--option` and the URL's `opt` items): numbers and booleans are
 * typed by the option's schema. Returns the algorithm id, the option and the typed value.
 */
export function parseOptionAssignment(text: string): {
  algorithm: string;
  option: string;
  value: OptionValue;
} {
  const m = /^([A-Za-z0-9][A-Za-z0-9_.:+-]*?)\.([A-Za-z][A-Za-z0-9_]*)=(.*)$/.exec(text.trim());
  if (!m)
    throw new ParamError(`Model option "${text}" must look like algorithm.option=value (e.g. lp.gamma=5).`);
  const [, algorithm, option, raw] = m;
  const spec = findAlgorithm(algorithm);
  if (!spec)
    throw new ParamError(
      `Model option "${text}": unknown algorithm "${algorithm}". Known algorithms: ${algorithmIds().join(', ')}.`,
    );
  const o = optionSpec(spec, option);
  if (!o) throw unknownOption(spec, option);
  const value = typedValue(o.constraint, raw);
  // The text as typed where it reads as another number (`1e400` is Infinity), so the user sees both.
  const got =
    typeof value !== 'number' || String(value) === raw.trim()
      ? undefined
      : Number.isNaN(value)
        ? JSON.stringify(raw)
        : `${raw.trim()} (read as ${value})`;
  const problem = paramProblem(spec.id, option, o.constraint, value, got);
  if (problem) throw new ParamError(problem);
  return { algorithm, option, value };
}

function typedValue(c: Constraint, raw: string): OptionValue {
  if (c.kind === 'interval') return raw.trim() === '' ? NaN : Number(raw);
  if (c.kind === 'oneOf') {
    const hit = c.values.find((v) => String(v) === raw);
    return hit ?? raw;
  }
  return raw;
}

/** Formats one option back into `id.option=value`. */
export function formatOptionAssignment(algorithm: string, option: string, value: OptionValue): string {
  return `${algorithm}.${option}=${String(value)}`;
}

// ---------------------------------------------------------------------------------------------
// Test-only registration (the dummy-algorithm test): add an entry, get a function that removes it.

export function registerAlgorithmForTest(spec: AlgorithmSpec): () => void {
  if (findAlgorithm(spec.id))
    throw new Error(`registerAlgorithmForTest: "${spec.id}" is already registered.`);
  entries.push(spec);
  return () => {
    const i = entries.indexOf(spec);
    if (i >= 0) entries.splice(i, 1);
  };
}
