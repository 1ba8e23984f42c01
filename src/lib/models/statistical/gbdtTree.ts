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
  /** Per node, its rows are idx[f·n + segStart .. f·n + segEnd) for every feature f. */
  readonly segStart: Int32Array;
  readonly segEnd: Int32Array;
  /** Column order partitioned by node (stable, so each node's rows stay sorted). */
  readonly idx: Int32Array;
  readonly vals: Float32Array;
  readonly tmpIdx: Int32Array;
  readonly tmpVals: Float32Array;
  readonly goLeft: Uint8Array;
  readonly feature: Int32Array;
  readonly threshold: Float32Array;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly value: Float32Array;
  readonly lossChg: Float32Array;

  constructor(n: number, d: number, maxDepth: number) {
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
    this.segStart = new Int32Array(m);
    this.segEnd = new Int32Array(m);
    this.idx = new Int32Array(n * d);
    this.vals = new Float32Array(n * d);
    this.tmpIdx = new Int32Array(n);
    this.tmpVals = new Float32Array(n);
    this.goLeft = new Uint8Array(n);
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
 *
 * xgboost scans each whole column once per level and routes every row to its node's
 * accumulator; we keep each node's rows as a sorted segment of every column instead (stable
 * partition after each split), which visits the same rows of a node in the same order.
 */
export function growTree(
  cols: SortedColumns,
  grad: Float32Array,
  hess: Float32Array,
  p: TreeParams,
  ws: TreeWorkspace,
): number {
  const { n, d, data } = cols;
  const { position, nodeG, nodeH, nodeWeight, rootGain, bestLoss, bestIndex, bestValue } = ws;
  const { segStart, segEnd, idx, vals, tmpIdx, tmpVals, goLeft } = ws;
  const { feature, threshold, left, right, value, lossChg } = ws;
  const mcw = p.minChildWeight;
  // A node whose hessian sum is below 2·min_child_weight cannot have two children with
  // min_child_weight each; skipping its scan changes nothing (the margin covers rounding).
  const minSplitHess = 2 * mcw * (1 - 1e-9);
  let nNodes = 1;
  feature[0] = -1;
  left[0] = -1;
  right[0] = -1;

  // Root segment: every row with a non-negative hessian, in column order.
  let nRoot = 0;
  for (let r = 0; r < n; r++) {
    position[r] = hess[r] < 0 ? ~0 : 0;
    if (hess[r] >= 0) nRoot++;
  }
  if (nRoot === n) {
    idx.set(cols.order);
    vals.set(cols.values);
  } else {
    for (let f = 0; f < d; f++) {
      let w = f * n;
      for (let i = f * n; i < f * n + n; i++) {
        if (position[cols.order[i]] < 0) continue;
        idx[w] = cols.order[i];
        vals[w++] = cols.values[i];
      }
    }
  }
  segStart[0] = 0;
  segEnd[0] = nRoot;

  let qFirst = 0;
  let qLast = 1;
  initNodes(ws, grad, hess, n, p, qFirst, qLast);
  for (let depth = 0; depth < p.maxDepth; depth++) {
    // FindSplit: per node, every feature's segment scanned from the largest value down.
    for (let nid = qFirst; nid < qLast; nid++) {
      let bLoss = 0;
      let bIndex = 0;
      let bValue = 0;
      const G = nodeG[nid];
      const H = nodeH[nid];
      const root = rootGain[nid];
      if (H >= minSplitHess) {
        for (let f = 0; f < d; f++) {
          const lo = f * n + segStart[nid];
          const hi = f * n + segEnd[nid];
          let eG = 0;
          let eH = 0;
          let last = 0;
          for (let i = hi - 1; i >= lo; i--) {
            const r = idx[i];
            const fv = vals[i];
            if (eH === 0) {
              eG += grad[r];
              eH += hess[r];
              last = fv;
              continue;
            }
            if (fv !== last && eH >= mcw) {
              const cH = H - eH;
              if (cH >= mcw) {
                const loss = f32(calcGain(p, G - eG, cH) + calcGain(p, eG, eH) - root);
                if (needReplace(bLoss, bIndex, loss, f)) {
                  const proposed = f32(f32(fv + last) * 0.5);
                  bLoss = loss;
                  bIndex = f;
                  bValue = proposed === fv ? last : proposed;
                }
              }
            }
            eG += grad[r];
            eH += hess[r];
            last = fv;
          }
          // All rows on the right: only possible when min_child_weight ≤ the rounding residue.
          const cH = H - eH;
          if (eH >= mcw && cH >= mcw) {
            const loss = f32(calcGain(p, G - eG, cH) + calcGain(p, eG, eH) - root);
            if (needReplace(bLoss, bIndex, loss, f)) {
              bLoss = loss;
              bIndex = f;
              bValue = f32(last - f32(Math.abs(last) + RT_EPS));
            }
          }
        }
      }
      bestLoss[nid] = bLoss;
      bestIndex[nid] = bIndex;
      bestValue[nid] = bValue;
    }
    // Expand or close every node of this level; children get the next free ids in order.
    const nextFirst = nNodes;
    for (let nid = qFirst; nid < qLast; nid++) {
      lossChg[nid] = bestLoss[nid];
      if (!(bestLoss[nid] > RT_EPS)) {
        // A leaf; its rows keep this id, which no later level looks at.
        value[nid] = f32(nodeWeight[nid] * p.eta);
        continue;
      }
      const fs = bestIndex[nid];
      const thr = bestValue[nid];
      const lc = nNodes;
      const rc = nNodes + 1;
      feature[nid] = fs;
      threshold[nid] = thr;
      left[nid] = lc;
      right[nid] = rc;
      feature[lc] = feature[rc] = -1;
      left[lc] = left[rc] = -1;
      right[lc] = right[rc] = -1;
      nNodes += 2;
      // ResetPosition: value < threshold goes left (missing would take the default, left).
      const s0 = segStart[nid];
      const e0 = segEnd[nid];
      let nLeft = 0;
      for (let i = s0; i < e0; i++) {
        const r = idx[i];
        const v = data[r * d + fs];
        const gl = v < thr || v !== v ? 1 : 0;
        goLeft[r] = gl;
        position[r] = gl ? lc : rc;
        nLeft += gl;
      }
      segStart[lc] = s0;
      segEnd[lc] = s0 + nLeft;
      segStart[rc] = s0 + nLeft;
      segEnd[rc] = e0;
    }
    qFirst = nextFirst;
    qLast = nNodes;
    if (qFirst === qLast) break;
    initNodes(ws, grad, hess, n, p, qFirst, qLast);
    if (depth + 1 === p.maxDepth) break;
    // Partition the column segments of the split nodes whose children will be scanned.
    for (let lc = qFirst; lc < qLast; lc += 2) {
      if (nodeH[lc] < minSplitHess && nodeH[lc + 1] < minSplitHess) continue;
      const s0 = segStart[lc];
      const e0 = segEnd[lc + 1];
      for (let f = 0; f < d; f++) {
        const base = f * n;
        let wl = base + s0;
        let wr = 0;
        // Branch-free stable partition (wl never passes i, so nothing unread is overwritten).
        for (let i = base + s0; i < base + e0; i++) {
          const r = idx[i];
          const v = vals[i];
          const g = goLeft[r];
          idx[wl] = r;
          vals[wl] = v;
          tmpIdx[wr] = r;
          tmpVals[wr] = v;
          wl += g;
          wr += 1 - g;
        }
        idx.set(tmpIdx.subarray(0, wr), wl);
        vals.set(tmpVals.subarray(0, wr), wl);
      }
    }
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
