/**
 * One regression tree grown like xgboost 1.7's exact greedy updater (`grow_colmaker` + `prune`),
 * single-threaded, so that every floating-point step happens in xgboost's order and precision:
 *
 * - feature values and split thresholds are float32; gradient pairs are float32 and summed in
 *   float64 (GradStats); node weight and root gain are stored as float32 (NodeEntry);
 * - per level, every feature is scanned from its largest value down (dense columns only need the
 *   backward search, default direction left); a candidate sits between two distinct values, at
 *   their float32 midpoint (or the upper value when the midpoint rounds onto the lower one);
 * - gain of a side = G²/(H+λ) in float64 returned as float32; loss change =
 *   float32(gain_L + gain_R − root_gain); both children need hessian ≥ min_child_weight;
 * - ties: a later candidate replaces the best only when strictly better, except that a lower
 *   feature index wins an exact tie (SplitEntry::NeedReplace); a node splits when loss > 1e-6;
 * - leaves get float32(weight · η) with weight = −G/(H+λ) (0 when H < min_child_weight);
 * - `prune` with γ: a split whose children are both leaves and whose loss change is below γ is
 *   folded back into a leaf (a no-op at the default γ = 0).
 */

const f32 = Math.fround;
/** xgboost's kRtEps. */
const RT_EPS = 1e-6;

export interface TreeParams {
  maxDepth: number;
  /** η as float32. */
  eta: number;
  regLambda: number;
  regAlpha: number;
  gamma: number;
  minChildWeight: number;
}

/** A fitted tree as flat arrays; node 0 is the root, `left[i] < 0` marks a leaf. */
export interface Tree {
  nNodes: number;
  feature: Int32Array;
  threshold: Float32Array;
  left: Int32Array;
  right: Int32Array;
  /** Leaf value (already multiplied by η) for leaves. */
  value: Float32Array;
}

/**
 * Column-sorted view of a float32 row-major matrix, built once per fit and shared by all trees.
 * order[f·n + i] is the row with the i-th smallest value of feature f; ties in row order.
 */
export interface SortedColumns {
  n: number;
  d: number;
  order: Int32Array;
  values: Float32Array;
  /** The matrix itself (row-major), for routing rows after a split. */
  data: Float32Array;
}

export function sortColumns(data: Float32Array, n: number, d: number): SortedColumns {
  const order = new Int32Array(n * d);
  const values = new Float32Array(n * d);
  const idx = new Int32Array(n);
  const col = new Float32Array(n);
  for (let f = 0; f < d; f++) {
    for (let i = 0; i < n; i++) {
      idx[i] = i;
      col[i] = data[i * d + f];
    }
    // NaN (missing) would be absent from xgboost's column; the benchmark never produces it.
    idx.sort((a, b) => col[a] - col[b] || a - b);
    for (let i = 0; i < n; i++) {
      order[f * n + i] = idx[i];
      values[f * n + i] = col[idx[i]];
    }
  }
  return { n, d, order, values, data };
}

function thresholdL1(g: number, alpha: number): number {
  if (g > alpha) return g - alpha;
  if (g < -alpha) return g + alpha;
  return 0;
}

/** tree::CalcWeight in float64 (the caller rounds to float32). */
function calcWeight(p: TreeParams, g: number, h: number): number {
  if (h < p.minChildWeight || h <= 0) return 0;
  return -thresholdL1(g, p.regAlpha) / (h + p.regLambda);
}

/** SplitEvaluator::CalcGainGivenWeight without constraints: float32(G²/(H+λ)). */
function calcGain(p: TreeParams, g: number, h: number): number {
  if (h <= 0) return 0;
  const t = thresholdL1(g, p.regAlpha);
  return f32((t * t) / (h + p.regLambda));
}

/** InitNewNode: per-node sums in row order, then float32 weight and root gain. */
function initNodes(
  ws: TreeWorkspace,
  grad: Float32Array,
  hess: Float32Array,
  n: number,
  p: TreeParams,
  first: number,
  last: number,
): void {
  const { position, nodeG, nodeH, nodeWeight, rootGain } = ws;
  for (let nid = first; nid < last; nid++) {
    nodeG[nid] = 0;
    nodeH[nid] = 0;
  }
  for (let r = 0; r < n; r++) {
    const nid = position[r];
    if (nid >= first && nid < last) {
      nodeG[nid] += grad[r];
      nodeH[nid] += hess[r];
    }
  }
  for (let nid = first; nid < last; nid++) {
    nodeWeight[nid] = f32(calcWeight(p, nodeG[nid], nodeH[nid]));
    rootGain[nid] = calcGain(p, nodeG[nid], nodeH[nid]);
  }
}

/** Scratch buffers reused across the trees of one fit. */
export class TreeWorkspace {
  readonly position: Int32Array;
  readonly maxNodes: number;
  readonly nodeG: Float64Array;
  readonly nodeH: Float64Array;
  readonly nodeWeight: Float32Array;
  readonly rootGain: Float32Array;
  readonly bestLoss: Float32Array;
  readonly bestIndex: Int32Array;
  readonly bestValue: Float32Array;
  readonly eG: Float64Array;
  readonly eH: Float64Array;
  readonly eLast: Float32Array;
  readonly feature: Int32Array;
  readonly threshold: Float32Array;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly value: Float32Array;
  readonly lossChg: Float32Array;

  constructor(n: number, maxDepth: number) {
    this.position = new Int32Array(n);
    this.maxNodes = 2 ** (maxDepth + 1) - 1;
    const m = this.maxNodes;
    this.nodeG = new Float64Array(m);
    this.nodeH = new Float64Array(m);
    this.nodeWeight = new Float32Array(m);
    this.rootGain = new Float32Array(m);
    this.bestLoss = new Float32Array(m);
    this.bestIndex = new Int32Array(m);
    this.bestValue = new Float32Array(m);
    this.eG = new Float64Array(m);
    this.eH = new Float64Array(m);
    this.eLast = new Float32Array(m);
    this.feature = new Int32Array(m);
    this.threshold = new Float32Array(m);
    this.left = new Int32Array(m);
    this.right = new Int32Array(m);
    this.value = new Float32Array(m);
    this.lossChg = new Float32Array(m);
  }
}

/** SplitEntry::NeedReplace: strictly better, or an exact tie won by a lower feature index. */
function needReplace(oldLoss: number, oldIndex: number, newLoss: number, newIndex: number): boolean {
  if (newLoss === Infinity || newLoss === -Infinity) return false;
  return oldIndex <= newIndex ? newLoss > oldLoss : !(oldLoss > newLoss);
}

/**
 * Grows one tree on gradient pairs (float32 values, one per row) and returns it.
 * Rows with a negative hessian would be dropped by xgboost; ours never have one.
 */
export function growTree(
  cols: SortedColumns,
  grad: Float32Array,
  hess: Float32Array,
  p: TreeParams,
  ws: TreeWorkspace,
): Tree {
  const { n, d, order, values, data } = cols;
  const { position, nodeG, nodeH, nodeWeight, rootGain, bestLoss, bestIndex, bestValue, eG, eH, eLast } = ws;
  const { feature, threshold, left, right, value, lossChg } = ws;
  const mcw = p.minChildWeight;
  // A node whose hessian sum is below 2·min_child_weight cannot have two children with
  // min_child_weight each; skipping its scan changes nothing (the margin covers rounding).
  const minSplitHess = 2 * mcw * (1 - 1e-9);
  let nNodes = 1;
  feature[0] = -1;
  left[0] = -1;
  right[0] = -1;

  position.fill(0, 0, n);
  for (let r = 0; r < n; r++) if (hess[r] < 0) position[r] = ~0;

  let qFirst = 0;
  let qLast = 1;
  initNodes(ws, grad, hess, n, p, qFirst, qLast);
  for (let depth = 0; depth < p.maxDepth; depth++) {
    // FindSplit over the nodes qFirst..qLast-1 (ids of one level are contiguous).
    for (let nid = qFirst; nid < qLast; nid++) {
      bestLoss[nid] = 0;
      bestIndex[nid] = 0;
      bestValue[nid] = 0;
    }
    let anySplittable = false;
    for (let nid = qFirst; nid < qLast; nid++) if (nodeH[nid] >= minSplitHess) anySplittable = true;
    for (let f = 0; anySplittable && f < d; f++) {
      for (let nid = qFirst; nid < qLast; nid++) {
        eG[nid] = 0;
        eH[nid] = 0;
      }
      const base = f * n;
      for (let i = n - 1; i >= 0; i--) {
        const r = order[base + i];
        const nid = position[r];
        if (nid < 0) continue;
        const fv = values[base + i];
        if (eH[nid] === 0) {
          eG[nid] += grad[r];
          eH[nid] += hess[r];
          eLast[nid] = fv;
          continue;
        }
        const last = eLast[nid];
        if (fv !== last && eH[nid] >= mcw) {
          const cG = nodeG[nid] - eG[nid];
          const cH = nodeH[nid] - eH[nid];
          if (cH >= mcw) {
            const gain = calcGain(p, cG, cH) + calcGain(p, eG[nid], eH[nid]);
            const loss = f32(gain - rootGain[nid]);
            if (needReplace(bestLoss[nid], bestIndex[nid], loss, f)) {
              const proposed = f32(f32(fv + last) * 0.5);
              bestLoss[nid] = loss;
              bestIndex[nid] = f;
              bestValue[nid] = proposed === fv ? last : proposed;
            }
          }
        }
        eG[nid] += grad[r];
        eH[nid] += hess[r];
        eLast[nid] = fv;
      }
      // All rows on the right: only possible when min_child_weight ≤ the rounding residue.
      for (let nid = qFirst; nid < qLast; nid++) {
        const cG = nodeG[nid] - eG[nid];
        const cH = nodeH[nid] - eH[nid];
        if (eH[nid] >= mcw && cH >= mcw) {
          const gain = calcGain(p, cG, cH) + calcGain(p, eG[nid], eH[nid]);
          const loss = f32(gain - rootGain[nid]);
          if (needReplace(bestLoss[nid], bestIndex[nid], loss, f)) {
            bestLoss[nid] = loss;
            bestIndex[nid] = f;
            bestValue[nid] = f32(eLast[nid] - f32(Math.abs(eLast[nid]) + RT_EPS));
          }
        }
      }
    }
    // Expand or close every node of this level; children get the next free ids in order.
    const nextFirst = nNodes;
    for (let nid = qFirst; nid < qLast; nid++) {
      lossChg[nid] = bestLoss[nid];
      if (bestLoss[nid] > RT_EPS) {
        feature[nid] = bestIndex[nid];
        threshold[nid] = bestValue[nid];
        left[nid] = nNodes;
        right[nid] = nNodes + 1;
        for (const c of [nNodes, nNodes + 1]) {
          feature[c] = -1;
          left[c] = -1;
          right[c] = -1;
        }
        nNodes += 2;
      } else {
        value[nid] = f32(nodeWeight[nid] * p.eta);
      }
    }
    // ResetPosition: route rows of split nodes (value < threshold goes left), retire the rest.
    for (let r = 0; r < n; r++) {
      const nid = position[r];
      if (nid < qFirst || nid >= qLast) continue;
      if (left[nid] < 0) {
        position[r] = ~nid;
        continue;
      }
      const v = data[r * d + feature[nid]];
      position[r] = v < threshold[nid] || v !== v ? left[nid] : right[nid];
    }
    qFirst = nextFirst;
    qLast = nNodes;
    if (qFirst === qLast) break;
    initNodes(ws, grad, hess, n, p, qFirst, qLast);
  }
  for (let nid = qFirst; nid < qLast; nid++) value[nid] = f32(nodeWeight[nid] * p.eta);

  if (p.gamma > 0) prune(0, 0, { feature, left, right, value }, lossChg, nodeWeight, p);
  // Keep only the used nodes: ensembles hold thousands of trees (letter: 26 per round).
  return {
    nNodes,
    feature: feature.slice(0, nNodes),
    threshold: threshold.slice(0, nNodes),
    left: left.slice(0, nNodes),
    right: right.slice(0, nNodes),
    value: value.slice(0, nNodes),
  };
}

/** The `prune` updater: fold splits with loss change < γ whose children are leaves, bottom-up. */
function prune(
  nid: number,
  depth: number,
  t: Pick<Tree, 'feature' | 'left' | 'right' | 'value'>,
  lossChg: Float32Array,
  baseWeight: Float32Array,
  p: TreeParams,
): void {
  if (t.left[nid] < 0) return;
  prune(t.left[nid], depth + 1, t, lossChg, baseWeight, p);
  prune(t.right[nid], depth + 1, t, lossChg, baseWeight, p);
  if (t.left[t.left[nid]] < 0 && t.left[t.right[nid]] < 0 && lossChg[nid] < p.gamma) {
    t.left[nid] = -1;
    t.right[nid] = -1;
    t.feature[nid] = -1;
    t.value[nid] = f32(p.eta * baseWeight[nid]);
  }
}

/** Leaf value for row r of a row-major float32 matrix (missing values take the default: left). */
export function treeLeafValue(t: Tree, x: Float32Array, offset: number): number {
  let nid = 0;
  const { left, right, feature, threshold } = t;
  while (left[nid] >= 0) {
    const v = x[offset + feature[nid]];
    nid = v < threshold[nid] || v !== v ? left[nid] : right[nid];
  }
  return t.value[nid];
}
