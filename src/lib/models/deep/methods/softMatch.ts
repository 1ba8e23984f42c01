/**
 * SoftMatch (Chen et al. 2023): truncated-Gaussian weights on hard pseudo-labels from distribution-
 * aligned weak-view predictions (§7.4: DA on, EMA 0.999; threshold and T unused). State on the
 * device: p_lb, p_ulb (1/k), μ_t (1/k), σ²_t (1). Each step the EMAs take the PRE-alignment
 * p_l = softmax(sg f(x_l)) and p = softmax(sg f(u_w)); then p̃ ∝ p·p_lb/p_ulb, ĉ = argmax p̃,
 * g = exp(−min(max p̃ − μ_t, 0)² / (2σ²_t/4)), L_u = mean(g·CE(f(u_s), ĉ)).
 */
import * as tf from '@tensorflow/tfjs';
import { ceRows, maxArg, meanAll, sg } from '../losses.ts';
import { variableFrom } from '../optim.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface SoftMatchParams {
  emaP: number;
  lambdaU: number;
  mu: number;
  threshold: number;
  temperature: number;
  /**
   * Distribution alignment (LAMDA's `use_DA`): 1 on (the default, and the tabular protocol), 0 off.
   * The image/text scripts set it per panel (PROTOCOL-IMAGE-TEXT.md §7.6: panelPlan.ts
   * `softMatchAlignment`); off, the pseudo-label comes from p itself and p_lb, p_ulb are not tracked.
   */
  distAlign?: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const SOFTMATCH_DEFAULTS: Readonly<SoftMatchParams> = Object.freeze(
  methodDefaults('softmatch') as unknown as SoftMatchParams,
);

type StateName = 'pLb' | 'pUlb' | 'muT' | 'varT';

export function softMatch(p: Partial<SoftMatchParams> = {}): DeepMethod {
  const h = { ...SOFTMATCH_DEFAULTS, ...p };
  const align = h.distAlign === undefined || h.distAlign !== 0;
  const st = new Map<StateName, tf.Variable>();
  const ema = (name: StateName, x: tf.Tensor) => {
    const v = st.get(name)!;
    v.assign(tf.add(tf.mul(v, h.emaP), tf.mul(x, 1 - h.emaP)));
    return v;
  };
  return {
    id: 'softmatch',
    mu: h.mu,
    labeledView: 'weak',
    views: ['weak', 'strong'],
    lambdaU: h.lambdaU,
    warmup: null,
    hyper: { ...h, thresholdUsed: false, temperatureUsed: false },
    init(k) {
      for (const v of st.values()) v.dispose();
      st.set('pLb', variableFrom(tf.fill([k], 1 / k), false));
      st.set('pUlb', variableFrom(tf.fill([k], 1 / k), false));
      st.set('muT', variableFrom(tf.scalar(1 / k), false));
      st.set('varT', variableFrom(tf.scalar(1), false));
    },
    prepare: (io) => ({ student: [io.u[1]], aux: [tf.softmax(io.teacher(io.u[0]))] }),
    unsupervised(io, [p], [ls], logitsL) {
      const maxP = tf.max(p, 1);
      const n = maxP.shape[0];
      const mean = tf.mean(maxP);
      const varUnbiased = tf.div(tf.sum(tf.square(tf.sub(maxP, mean))), Math.max(n - 1, 1));
      const muT = ema('muT', mean);
      const varT = ema('varT', varUnbiased);
      let pt = p as tf.Tensor2D;
      if (align) {
        const pl = tf.softmax(sg(logitsL));
        const pLb = ema('pLb', tf.mean(pl, 0));
        const pUlb = ema('pUlb', tf.mean(p, 0));
        const aligned = tf.mul(p, tf.div(pLb, pUlb));
        pt = tf.div(aligned, tf.sum(aligned, 1, true)) as tf.Tensor2D;
      }
      const { max, arg } = maxArg(pt);
      const gap = tf.minimum(tf.sub(max, muT), 0);
      const g = tf.exp(tf.neg(tf.div(tf.square(gap), tf.div(tf.mul(varT, 2), 4))));
      return { lu: meanAll(tf.mul(g, ceRows(ls, arg, io.k))), mask: tf.mean(g) };
    },
    async saveState() {
      const out: Record<string, Float32Array> = {};
      for (const [k, v] of st) out[k] = (await v.data()) as Float32Array;
      return out;
    },
    loadState(s) {
      for (const [k, v] of st) {
        const a = s[k] as Float32Array | undefined;
        if (!a || a.length !== v.size)
          throw new Error(`SoftMatch checkpoint: ${k} is missing or has the wrong size.`);
        tf.tidy(() => v.assign(tf.tensor(a, v.shape, 'float32')));
      }
    },
    dispose() {
      for (const v of st.values()) v.dispose();
      st.clear();
    },
  };
}
