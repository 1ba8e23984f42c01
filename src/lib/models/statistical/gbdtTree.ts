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

/**
 * All trees of one model in shared flat arrays (thousands of small typed arrays would cost more
 * in allocation and GC than the fit itself). Tree t's root is node `root[t]`; child indices are
 * absolute, −1 marks a leaf.
 */
export class Forest {
  nTrees = 0;
  nNodes = 0;
  root = new Int32Array(64);
  feature = new Int32Array(1024);
  threshold = new Float32Array(1024);
  left = new Int32Array(1024);
  right = new Int32Array(1024);
  /** Leaf value (already multiplied by η) for leaves. */
  value = new Float32Array(1024);

  /** Appends the tree held in the workspace (nodes 0..nNodes−1); returns its index. */
  push(ws: TreeWorkspace, nNodes: number): number {
    if (this.nTrees === this.root.length) this.root = grow(this.root, this.root.length * 2);
    const need = this.nNodes + nNodes;
    if (need > this.feature.length) {
      const cap = Math.max(need, this.feature.length * 2);
      this.feature = grow(this.feature, cap);
      this.threshold = grow(this.threshold, cap);
      this.left = grow(this.left, cap);
      this.right = grow(this.right, cap);
      this.value = grow(this.value, cap);
    }
    const o = this.nNodes;
    for (let i = 0; i < nNodes; i++) {
      const l = ws.left[i];
      this.feature[o + i] = ws.feature[i];
      this.threshold[o + i] = ws.threshold[i];
      this.left[o + i] = l < 0 ? -1 : o + l;
      this.right[o + i] = l < 0 ? -1 : o + ws.right[i];
      this.value[o + i] = ws.value[i];
    }
    this.root[this.nTrees] = o;
    this.nNodes = need;
    return this.nTrees++;
  }

  /** Leaf value of tree t for the row at `offset` of a row-major float32 matrix (missing → left). */
  leafValue(t: number, x: Float32Array, offset: number): number {
    const { left, right, feature, threshold } = this;
    let nid = this.root[t];
    while (left[nid] >= 0) {
      const v = x[offset + feature[nid]];
      nid = v < threshold[nid] || v !== v ? left[nid] : right[nid];
    }
    return this.value[nid];
  }

  /** Drops the spare capacity once the model is complete. */
  trim(): void {
    this.root = this.root.slice(0, this.nTrees);
    this.feature = this.feature.slice(0, this.nNodes);
    this.threshold = this.threshold.slice(0, this.nNodes);
    this.left = this.left.slice(0, this.nNodes);
    this.right = this.right.slice(0, this.nNodes);
    this.value = this.value.slice(0, this.nNodes);
  }
}

function grow<T extends Int32Array | Float32Array>(a: T, cap: number): T {
  const b = new (a.constructor as { new (n: number): T })(cap);
  b.set(a);
  return b;
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
 * Grows one tree on gradient pairs (float32 values, one per row) into the workspace's node arrays
 * and returns its node count (see Forest.push). Rows with a negative hessian would be dropped by
 * xgboost; ours never have one.
 */
export function growTree(
  cols: SortedColumns,
  grad: Float32Array,
  hess: Float32Array,
  p: TreeParams,
  ws: TreeWorkspace,
): number {
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

  if (p.gamma > 0) prune(0, ws, p);
  return nNodes;
}

/** The `prune` updater: fold splits with loss change < γ whose children are leaves, bottom-up. */
function prune(nid: number, ws: TreeWorkspace, p: TreeParams): void {
  const { left, right, feature, value, lossChg, nodeWeight } = ws;
  if (left[nid] < 0) return;
  prune(left[nid], ws, p);
  prune(right[nid], ws, p);
  if (left[left[nid]] < 0 && left[right[nid]] < 0 && lossChg[nid] < p.gamma) {
    left[nid] = -1;
    right[nid] = -1;
    feature[nid] = -1;
    value[nid] = f32(p.eta * nodeWeight[nid]);
  }
}
