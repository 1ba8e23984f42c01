/**
 * From a checkpoint's names to the network's (STYLE.md §7, §15): loading is a name lookup through a
 * short, explicit remap (strip or add a prefix, ignore heads we do not use, rename), never a
 * positional copy, and a missing or unexpected name is an error that lists the names. The layout
 * changes PyTorch → TensorFlow.js (OIHW → HWIO, Linear [out, in] → [in, out]) live here too.
 */
import { FLOAT_DTYPES, type SafetensorsDtype, type SafetensorsFile } from './safetensors.ts';

export interface WeightMapSpec {
  /**
   * Prefixes removed from checkpoint names, the first that matches (e.g. `['roberta.']`). A name
   * without any of them is kept as is, so checkpoints saved with and without the prefix both load.
   */
  stripPrefixes?: readonly string[];
  /** Added to every name after stripping and renaming. Default ''. */
  addPrefix?: string;
  /**
   * Names to skip: globs where `*` matches any run of characters (`lm_head.*`, `roberta.pooler.*`),
   * or regular expressions. A tensor is ignored when its checkpoint name or its mapped name matches.
   */
  ignore?: readonly (string | RegExp)[];
  /** Applied in order to the stripped name: a string `from` replaces every occurrence, a RegExp as String.replace. */
  rename?: readonly { from: string | RegExp; to: string }[];
}

export interface MappedTensor {
  readonly shape: readonly number[];
  /** float32 values, row-major in the checkpoint's layout (a view on the file's buffer for aligned F32). */
  readonly data: Float32Array;
  /** The checkpoint's name for it. */
  readonly source: string;
}

export interface MapWeightsOptions {
  /**
   * The names the network needs, or those names with their shapes (then shapes are checked too).
   * Without it, every mapped tensor is returned and nothing is missing or unused.
   */
  expected?: Iterable<string> | ReadonlyMap<string, readonly number[]>;
  /** Return instead of throwing when expected names are missing. Default false. */
  allowMissing?: boolean;
  /** Return instead of throwing when mapped names are not expected. Default false. */
  allowUnused?: boolean;
}

export interface MappedWeights {
  /** Mapped name → tensor; only expected names when `expected` was given. */
  readonly weights: Map<string, MappedTensor>;
  /** Expected names the checkpoint does not have. */
  readonly missing: string[];
  /** Checkpoint names whose mapped name is not expected (neither ignored). */
  readonly unused: string[];
  /** Checkpoint names that matched an ignore pattern. */
  readonly ignored: string[];
  /** Checkpoint tensors of a non-float dtype (e.g. RoBERTa's int64 `position_ids` buffer): never read. */
  readonly nonFloat: { name: string; dtype: SafetensorsDtype }[];
}

export class WeightMapError extends Error {
  readonly missing: readonly string[];
  readonly unused: readonly string[];

  constructor(message: string, missing: readonly string[] = [], unused: readonly string[] = []) {
    super(message);
    this.name = 'WeightMapError';
    this.missing = missing;
    this.unused = unused;
  }
}

/** A glob (`*` = any run of characters) as an anchored RegExp; a RegExp is returned as is. */
export function globToRegExp(pattern: string | RegExp): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** The network's name for a checkpoint name under `spec` (ignore patterns aside). */
export function mapName(name: string, spec: WeightMapSpec): string {
  let out = name;
  const prefix = (spec.stripPrefixes ?? []).find((p) => out.startsWith(p));
  if (prefix !== undefined) out = out.slice(prefix.length);
  for (const { from, to } of spec.rename ?? []) {
    out = typeof from === 'string' ? out.split(from).join(to) : out.replace(from, to);
  }
  return (spec.addPrefix ?? '') + out;
}

/**
 * Maps a parsed checkpoint's tensors to the network's names. Throws a WeightMapError that lists
 * the names when expected ones are missing or checkpoint ones are unused (unless allowed), when two
 * checkpoint names map to one name, when an expected tensor is not a float, or on a shape mismatch.
 */
export function mapWeights(
  file: SafetensorsFile,
  spec: WeightMapSpec,
  opts: MapWeightsOptions = {},
): MappedWeights {
  const ignore = (spec.ignore ?? []).map(globToRegExp);
  const isIgnored = (n: string) => ignore.some((re) => re.test(n));
  const given = opts.expected;
  const shapes = given instanceof Map ? (given as ReadonlyMap<string, readonly number[]>) : null;
  const expected =
    given === undefined ? null : new Set<string>(shapes ? shapes.keys() : (given as Iterable<string>));

  const weights = new Map<string, MappedTensor>();
  const sourceOf = new Map<string, string>();
  const unused: string[] = [];
  const ignored: string[] = [];
  const nonFloat: { name: string; dtype: SafetensorsDtype }[] = [];
  for (const name of file.names) {
    const mapped = mapName(name, spec);
    if (isIgnored(name) || isIgnored(mapped)) {
      ignored.push(name);
      continue;
    }
    const clash = sourceOf.get(mapped);
    if (clash !== undefined) {
      throw new WeightMapError(
        `mapWeights: checkpoint tensors '${clash}' and '${name}' both map to '${mapped}'; ` +
          'fix the prefix or rename rules, or ignore one of them.',
      );
    }
    sourceOf.set(mapped, name);
    const { dtype, shape } = file.info(name);
    if (!FLOAT_DTYPES.includes(dtype)) {
      if (expected?.has(mapped)) {
        throw new WeightMapError(
          `mapWeights: '${mapped}' (checkpoint '${name}') has dtype ${dtype}; a weight must be one of ` +
            `${FLOAT_DTYPES.join(', ')}.`,
        );
      }
      nonFloat.push({ name, dtype });
      continue;
    }
    if (expected && !expected.has(mapped)) {
      unused.push(name);
      continue;
    }
    const want = shapes?.get(mapped);
    if (want && !sameShape(want, shape)) {
      throw new WeightMapError(
        `mapWeights: '${mapped}' (checkpoint '${name}') has shape ${JSON.stringify(shape)}; ` +
          `the network expects ${JSON.stringify(want)}.`,
      );
    }
    weights.set(mapped, { shape, data: file.float32(name), source: name });
  }
  const missing = expected ? [...expected].filter((n) => !weights.has(n)) : [];
  if (missing.length && !opts.allowMissing) {
    throw new WeightMapError(
      `mapWeights: the checkpoint lacks ${missing.length} expected tensor(s): ${list(missing)}` +
        (unused.length ? `. Unused checkpoint tensors (a prefix or rename problem?): ${list(unused)}` : '') +
        '.',
      missing,
      unused,
    );
  }
  if (unused.length && !opts.allowUnused) {
    throw new WeightMapError(
      `mapWeights: ${unused.length} checkpoint tensor(s) map to no expected name: ${list(unused)}. ` +
        'Ignore them in the spec, or allow unused names.',
      missing,
      unused,
    );
  }
  return { weights, missing, unused, ignored, nonFloat };
}

function list(names: readonly string[], max = 20): string {
  const shown = names.slice(0, max).map((n) => `'${n}'`);
  return names.length > max ? `${shown.join(', ')} and ${names.length - max} more` : shown.join(', ');
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export interface Reshaped {
  data: Float32Array;
  shape: number[];
}

function checkShape(
  fn: string,
  data: Float32Array,
  shape: readonly number[],
  rank: number,
  what: string,
): void {
  if (shape.length !== rank) {
    throw new RangeError(`${fn}: expected a rank-${rank} ${what}; got shape ${JSON.stringify(shape)}.`);
  }
  const size = shape.reduce((p, s) => p * s, 1);
  if (data.length !== size) {
    throw new RangeError(
      `${fn}: shape ${JSON.stringify(shape)} has ${size} elements; the data has ${data.length}.`,
    );
  }
}

/** PyTorch Conv2d weight [out, in, kh, kw] → TensorFlow conv2d filter [kh, kw, in, out] (a new array). */
export function oihwToHwio(data: Float32Array, shape: readonly number[]): Reshaped {
  checkShape('oihwToHwio', data, shape, 4, 'conv weight [out, in, kh, kw]');
  const [O, I, KH, KW] = shape;
  const out = new Float32Array(data.length);
  let src = 0;
  for (let o = 0; o < O; o++)
    for (let i = 0; i < I; i++)
      for (let h = 0; h < KH; h++)
        for (let w = 0; w < KW; w++) out[((h * KW + w) * I + i) * O + o] = data[src++];
  return { data: out, shape: [KH, KW, I, O] };
}

/**
 * PyTorch depthwise Conv2d weight (groups = in channels) [in·multiplier, 1, kh, kw] → TensorFlow
 * depthwiseConv2d filter [kh, kw, in, multiplier]. PyTorch's output channel c·multiplier + m is
 * TensorFlow's (channel c, multiplier m), so only the spatial axes move. multiplier defaults to 1
 * (MobileNet's depthwise convs).
 */
export function oihwToDepthwise(data: Float32Array, shape: readonly number[], multiplier = 1): Reshaped {
  checkShape('oihwToDepthwise', data, shape, 4, 'depthwise conv weight [in*multiplier, 1, kh, kw]');
  const [O, one, KH, KW] = shape;
  if (one !== 1 || !(Number.isInteger(multiplier) && multiplier >= 1) || O % multiplier !== 0) {
    throw new RangeError(
      `oihwToDepthwise: expected shape [in*multiplier, 1, kh, kw] with multiplier ${multiplier}; ` +
        `got ${JSON.stringify(shape)}.`,
    );
  }
  const C = O / multiplier;
  const M = multiplier;
  const out = new Float32Array(data.length);
  let src = 0;
  for (let c = 0; c < C; c++)
    for (let m = 0; m < M; m++)
      for (let h = 0; h < KH; h++)
        for (let w = 0; w < KW; w++) out[((h * KW + w) * C + c) * M + m] = data[src++];
  return { data: out, shape: [KH, KW, C, M] };
}

/** PyTorch Linear weight [out, in] → TensorFlow dense kernel [in, out] (a new array). */
export function transpose2d(data: Float32Array, shape: readonly number[]): Reshaped {
  checkShape('transpose2d', data, shape, 2, 'matrix [out, in]');
  const [R, C] = shape;
  const out = new Float32Array(data.length);
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) out[c * R + r] = data[r * C + c];
  return { data: out, shape: [C, R] };
}
