/**
 * Splits of the image and text panels (PROTOCOL-IMAGE-TEXT.md §3, §5): the same stratified split
 * primitive as the tables (PROTOCOL.md §3.4, a fresh MT(seed) per call), applied to the pools of
 * a dataset's files instead of one matrix. L, E and U come from different files (the official test
 * split, a source and a target domain), so a split is a set of row-id lists, each with the file it
 * indexes (§4.3's canonical row order), and U is U_in ++ U_out with the OOD part rendered as the
 * panel says (`grey` images, `drop` texts, or the target domain as it is).
 *
 * Edge rules (§3): a request equal to its pool takes the pool in identity order with no draws
 * (stratifiedSplit's take-all); a zero request is an empty part with no split at all (the
 * scripts branch before DataSplit, or select afterwards), so P§3.4's takeZero never applies.
 */
import { labelPoolSizesRsb } from './label.ts';
import { pick } from './cellSplit.ts';
import { stratifiedSplit } from './stratifiedSplit.ts';

/** How a panel builds its pools (§5.1). */
export type PanelRule =
  /** cifar10/100 · feature: halves of train; U_out = the other half, grey (§5.3). */
  | 'feature-halves'
  /** ag_news · feature: halves of train, the target half halved again into I and O; O dropped (§5.3). */
  | 'feature-quarters'
  /** cifar10/100, ag_news · label: classes < k/2 are the source, the rest the OOD pool (§5.4). */
  | 'label-kept'
  /** image-clef, visda, imdb-amazon: source domain → L, E, H; target domain → U_out (§5.2). */
  | 'domains';

/** What the OOD part of U is made of. */
export type OodVariant = 'none' | 'grey' | 'drop';

/** The file a list of row ids indexes. */
export type PoolFile = 'train' | 'test' | 'source' | 'target';

/** The labels of the files a panel reads, in canonical row order (§4.3). */
export interface PanelLabels {
  /** `train` (feature, label) or the source domain (domains). */
  train: ArrayLike<number>;
  /** The official test split (feature, label); absent for domains (E comes from the source). */
  test?: ArrayLike<number>;
  /** The target domain (domains only). */
  target?: ArrayLike<number>;
  /** Classes of the full dataset. */
  k: number;
}

export interface PanelSplit {
  /** Row ids of `labeledFrom`, in produced order. */
  labeled: number[];
  labeledFrom: PoolFile;
  test: number[];
  testFrom: PoolFile;
  /** In-distribution unlabeled rows (may repeat L rows: §5.6), ids of `inFrom`. */
  unlabeledIn: number[];
  inFrom: PoolFile;
  /** OOD unlabeled rows, ids of `outFrom`, rendered as `outVariant`; they follow U_in in U. */
  unlabeledOut: number[];
  outFrom: PoolFile;
  outVariant: OodVariant;
  /** Outputs of the model: k, or k/2 in `label` (kept classes 0..k/2−1 keep their ids). */
  numClasses: number;
  /** Parts that took their whole pool in identity order, with no draws (§3 take-all; §11 `take_all`). */
  takeAll: ('L' | 'U_in' | 'U_out')[];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Labels at the given row ids. */
function labelsAt(y: ArrayLike<number>, rows: readonly number[]): Int32Array {
  const out = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = y[rows[i]];
  return out;
}

/** `first(split(y[pool], n, seed))` as row ids; [] for n = 0 without a split (§3). */
function firstOf(y: ArrayLike<number>, pool: readonly number[], n: number, seed: number): number[] {
  if (n <= 0) return [];
  return pick(pool, stratifiedSplit(labelsAt(y, pool), n, seed).first);
}

/** The parts whose request equalled their non-empty pool (take-all). */
function takeAllOf(parts: [name: 'L' | 'U_in' | 'U_out', n: number, pool: number][]): PanelSplit['takeAll'] {
  return parts.filter(([, n, pool]) => n > 0 && n >= pool).map(([name]) => name);
}

/** split(y[pool], size, seed) as two lists of row ids. */
function splitOf(
  y: ArrayLike<number>,
  pool: readonly number[],
  size: number,
  seed: number,
): { first: number[]; second: number[] } {
  const s = stratifiedSplit(labelsAt(y, pool), size, seed);
  return { first: pick(pool, s.first), second: pick(pool, s.second) };
}

function need<T>(value: T | undefined, what: string, rule: PanelRule): T {
  if (value === undefined) throw new Error(`panelSplit: rule '${rule}' needs the ${what} labels.`);
  return value;
}

/**
 * The split of one (panel, t, seed) cell. `labels` is the panel's labeled total (§1: 200 or 2 000
 * for CIFAR, 100 for the others); `t` a literal grid double (P§1).
 */
export function panelSplit(
  rule: PanelRule,
  y: PanelLabels,
  labels: number,
  t: number,
  seed: number,
): PanelSplit {
  const train = y.train;
  switch (rule) {
    case 'feature-halves': {
      const test = need(y.test, 'test', rule);
      const { first: S, second: T } = splitOf(train, range(train.length), 0.5, seed);
      const L = firstOf(train, S, labels, seed);
      const nT = T.length;
      const nIn = Math.trunc(nT * (1 - t)); // doubles: t = 0.8 gives 4 999 of 25 000
      const nOut = Math.trunc(nT * t);
      return {
        labeled: L,
        labeledFrom: 'train',
        test: range(test.length),
        testFrom: 'test',
        unlabeledIn: firstOf(train, S, nIn, seed),
        inFrom: 'train',
        unlabeledOut: firstOf(train, T, nOut, seed),
        outFrom: 'train',
        outVariant: 'grey',
        numClasses: y.k,
        takeAll: takeAllOf([
          ['L', labels, S.length],
          ['U_in', nIn, S.length],
          ['U_out', nOut, nT],
        ]),
      };
    }
    case 'feature-quarters': {
      const test = need(y.test, 'test', rule);
      const { first: S, second: T } = splitOf(train, range(train.length), 0.5, seed);
      const L = firstOf(train, S, labels, seed);
      const { first: I, second: O } = splitOf(train, T, 0.5, seed);
      const { nIn, nOut } = labelPoolSizesRsb(I.length, O.length, t);
      return {
        labeled: L,
        labeledFrom: 'train',
        test: range(test.length),
        testFrom: 'test',
        unlabeledIn: firstOf(train, I, nIn, seed),
        inFrom: 'train',
        unlabeledOut: firstOf(train, O, nOut, seed),
        outFrom: 'train',
        outVariant: 'drop',
        numClasses: y.k,
        takeAll: takeAllOf([
          ['L', labels, S.length],
          ['U_in', nIn, I.length],
          ['U_out', nOut, O.length],
        ]),
      };
    }
    case 'label-kept': {
      const test = need(y.test, 'test', rule);
      const m = y.k / 2;
      if (!Number.isInteger(m))
        throw new Error(`panelSplit: 'label-kept' needs an even k (k/2 kept classes); got k = ${y.k}.`);
      const S: number[] = [];
      const T: number[] = [];
      for (let i = 0; i < train.length; i++) (train[i] < m ? S : T).push(i);
      const E: number[] = [];
      for (let i = 0; i < test.length; i++) if (test[i] < m) E.push(i);
      const L = firstOf(train, S, labels, seed);
      const nT = T.length;
      const [nIn, nOut] = [Math.trunc(nT * (1 - t)), Math.trunc(nT * t)];
      return {
        labeled: L,
        labeledFrom: 'train',
        test: E,
        testFrom: 'test',
        unlabeledIn: firstOf(train, S, nIn, seed),
        inFrom: 'train',
        unlabeledOut: firstOf(train, T, nOut, seed),
        outFrom: 'train',
        outVariant: 'none',
        numClasses: m,
        takeAll: takeAllOf([
          ['L', labels, S.length],
          ['U_in', nIn, S.length],
          ['U_out', nOut, nT],
        ]),
      };
    }
    case 'domains': {
      const target = need(y.target, 'target', rule);
      const { first: L, second: R } = splitOf(train, range(train.length), labels, seed);
      const { first: E, second: H } = splitOf(train, R, 0.5, seed);
      const nu = Math.min(target.length, H.length);
      const nOut = Math.ceil(nu * t); // doubles, as the scripts compute it
      const nIn = nu - nOut;
      return {
        labeled: L,
        labeledFrom: 'source',
        test: E,
        testFrom: 'source',
        unlabeledIn: firstOf(train, H, nIn, seed),
        inFrom: 'source',
        unlabeledOut: firstOf(target, range(target.length), nOut, seed),
        outFrom: 'target',
        outVariant: 'none',
        numClasses: y.k,
        takeAll: takeAllOf([
          ['L', labels, train.length],
          ['U_in', nIn, H.length],
          ['U_out', nOut, target.length],
        ]),
      };
    }
  }
}

/** The rule of each (dataset, setting) panel of §5.1; undefined where the panel does not exist. */
export function panelRule(dataset: string, setting: string): PanelRule | undefined {
  const rules: Record<string, Partial<Record<string, PanelRule>>> = {
    cifar10: { feature: 'feature-halves', label: 'label-kept' },
    cifar100: { feature: 'feature-halves', label: 'label-kept' },
    ag_news: { feature: 'feature-quarters', label: 'label-kept' },
    'image-clef': { distribution: 'domains' },
    visda: { distribution: 'domains' },
    'imdb-amazon': { distribution: 'domains' },
  };
  return rules[dataset]?.[setting];
}
