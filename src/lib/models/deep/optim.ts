/**
 * The deep family's optimisers (PROTOCOL.md §7.2), written with tf ops so that their state is
 * ours to checkpoint and their arithmetic follows PyTorch's order of operations:
 *   coupled L2:  g ← g + wd·θ for parameters that are not biases (not AdamW)
 *   rsb:    Adam(β1 0.9, β2 0.999, ε 1e-8), bias-corrected as torch.optim.Adam
 *   readme: SGD momentum 0.9, dampening 0, no Nesterov (torch.optim.SGD: buf ← 0.9·buf + g)
 * One update covers every parameter at once: the parameters, the gradient and each slot are one
 * flat buffer (flatParams.ts), so a step is one kernel on cpu and wasm (RacAdam / RacSgd of
 * fusedKernels.ts, with the EMA shadow) and ~18 element-wise tf ops elsewhere, whatever the number
 * of parameter tensors (it was ~15 per tensor). Both do the same float32 operations in the same
 * order, element by element as before. Call `step` inside no tidy of your own (it tidies).
 */
import * as tf from '@tensorflow/tfjs';
import type { FlatLayout } from './flatParams.ts';
import { fusedKernel, runFused } from './fused.ts';

export type OptimizerKind = 'adam' | 'sgd';

export interface OptimizerConfig {
  kind: OptimizerKind;
  weightDecay: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  momentum?: number;
}

export interface OptimizerState {
  kind: OptimizerKind;
  /** Number of updates done (Adam's t). */
  t: number;
  /** Slot arrays per parameter: Adam `m.<name>`, `v.<name>`; SGD `buf.<name>`. */
  slots: Record<string, Float32Array>;
}

export class SlotOptimizer {
  private t = 0;
  /** Flat slots in the parameters' layout: Adam m, v; SGD buf. */
  private readonly slots = new Map<string, tf.Variable>();
  /** wd where the parameter decays, 0 elsewhere (null when wd = 0). */
  private readonly decay: tf.Tensor1D | null;

  /**
   * `theta`: every parameter in `layout`'s flat order (updated in place); `decays`: the names in
   * the weight-decay group.
   */
  constructor(
    private readonly cfg: OptimizerConfig,
    private readonly theta: tf.Variable,
    private readonly layout: FlatLayout,
    decays: ReadonlySet<string>,
  ) {
    for (const s of cfg.kind === 'adam' ? ['m', 'v'] : ['buf'])
      this.slots.set(s, variableFrom(tf.zeros([layout.size]), false));
    const wd = cfg.weightDecay;
    this.decay =
      wd !== 0
        ? tf.keep(
            tf.tensor1d(
              layout.fill((n) => (decays.has(n) ? wd : 0)),
              'float32',
            ),
          )
        : null;
  }

  get updates(): number {
    return this.t;
  }

  /**
   * One update with learning rate lr from the flat gradient (disposed by the caller); then, when
   * given, the EMA shadow s ← a·s + (1 − a)·θ of the updated weights.
   */
  step(grad: tf.Tensor, lr: number, ema?: { shadow: tf.Variable; decay: number }): void {
    this.t++;
    const t = this.t;
    const p = this.theta;
    const adam = this.cfg.kind === 'adam';
    const b1 = this.cfg.beta1 ?? 0.9,
      b2 = this.cfg.beta2 ?? 0.999,
      eps = this.cfg.eps ?? 1e-8;
    const bc1 = 1 - Math.pow(b1, t),
      bc2 = 1 - Math.pow(b2, t);
    tf.tidy(() => {
      const kernel = adam ? 'RacAdam' : 'RacSgd';
      if (fusedKernel(kernel)) {
        const inputs: tf.NamedTensorMap = { th: p, g: grad };
        if (this.decay) inputs.wd = this.decay;
        if (ema) inputs.s = ema.shadow;
        const a = ema?.decay ?? 0;
        let outs: tf.Tensor[];
        if (adam) {
          inputs.m = this.slots.get('m')!;
          inputs.v = this.slots.get('v')!;
          outs = runFused<tf.Tensor[]>(kernel, inputs, {
            b1,
            c1: 1 - b1,
            b2,
            c2: 1 - b2,
            sbc2: Math.sqrt(bc2),
            eps,
            lrc: lr / bc1,
            ema: a,
            cema: 1 - a,
          });
          this.slots.get('m')!.assign(outs[1]);
          this.slots.get('v')!.assign(outs[2]);
        } else {
          inputs.b = this.slots.get('buf')!;
          outs = runFused<tf.Tensor[]>(kernel, inputs, {
            mom: this.cfg.momentum ?? 0.9,
            lr,
            ema: a,
            cema: 1 - a,
          });
          this.slots.get('buf')!.assign(outs[1]);
        }
        p.assign(outs[0]);
        if (ema) ema.shadow.assign(outs[outs.length - 1]);
        return;
      }
      const g = this.decay ? tf.add(grad, tf.mul(p, this.decay)) : grad;
      if (adam) {
        const m = this.slots.get('m')!,
          v = this.slots.get('v')!;
        const m2 = tf.add(tf.mul(m, b1), tf.mul(g, 1 - b1));
        const v2 = tf.add(tf.mul(v, b2), tf.mul(tf.square(g), 1 - b2));
        m.assign(m2);
        v.assign(v2);
        const denom = tf.add(tf.div(tf.sqrt(v2), Math.sqrt(bc2)), eps);
        p.assign(tf.sub(p, tf.mul(tf.div(m2, denom), lr / bc1)));
      } else {
        const buf = this.slots.get('buf')!;
        // torch: the first step sets buf = g; 0.9·0 + g is the same value.
        const b = tf.add(tf.mul(buf, this.cfg.momentum ?? 0.9), g);
        buf.assign(b);
        p.assign(tf.sub(p, tf.mul(b, lr)));
      }
      if (ema) {
        const a = ema.decay;
        ema.shadow.assign(tf.add(tf.mul(ema.shadow, a), tf.mul(p, 1 - a)));
      }
    });
  }

  async save(): Promise<OptimizerState> {
    const slots: Record<string, Float32Array> = {};
    for (const [s, v] of this.slots) {
      const per = this.layout.unpack((await v.data()) as Float32Array);
      for (const [name, a] of Object.entries(per)) slots[`${s}.${name}`] = a;
    }
    return { kind: this.cfg.kind, t: this.t, slots };
  }

  load(st: OptimizerState): void {
    if (st.kind !== this.cfg.kind)
      throw new Error(`Checkpoint optimiser is ${st.kind}; this fit uses ${this.cfg.kind}.`);
    for (const [s, v] of this.slots) {
      const per: Record<string, Float32Array> = {};
      for (const name of this.layout.names) {
        const a = st.slots[`${s}.${name}`];
        if (!a || a.length !== this.layout.sizeOf(name))
          throw new Error(`Checkpoint optimiser slot ${s}.${name} is missing or has the wrong size.`);
        per[name] = a;
      }
      const flat = this.layout.pack(per);
      tf.tidy(() => v.assign(tf.tensor1d(flat, 'float32')));
    }
    this.t = st.t;
  }

  dispose(): void {
    for (const v of this.slots.values()) v.dispose();
    this.slots.clear();
    this.decay?.dispose();
  }
}

/** A variable that owns `t`'s data (tf.variable leaves the source tensor alive; dispose it). */
export function variableFrom(t: tf.Tensor, trainable: boolean, name?: string): tf.Variable {
  const v = tf.variable(t, trainable, name);
  t.dispose();
  return v;
}
