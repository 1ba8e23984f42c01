/**
 * The deep family's optimisers (PROTOCOL.md §7.2), written with tf ops so that their state is
 * ours to checkpoint and their arithmetic follows PyTorch's order of operations:
 *   coupled L2:  g ← g + wd·θ for parameters that are not biases (not AdamW)
 *   rsb:    Adam(β1 0.9, β2 0.999, ε 1e-8), bias-corrected as torch.optim.Adam
 *   readme: SGD momentum 0.9, dampening 0, no Nesterov (torch.optim.SGD: buf ← 0.9·buf + g)
 * Every slot is a tf.Variable updated in place; call `step` inside no tidy of your own (it tidies).
 */
import * as tf from '@tensorflow/tfjs';

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
  private readonly slots = new Map<string, tf.Variable>();
  constructor(
    private readonly cfg: OptimizerConfig,
    private readonly params: ReadonlyMap<string, tf.Variable>,
    private readonly decays: ReadonlySet<string>,
  ) {
    const names = cfg.kind === 'adam' ? ['m', 'v'] : ['buf'];
    for (const [name, p] of params) {
      for (const s of names) this.slots.set(`${s}.${name}`, variableFrom(tf.zerosLike(p), false));
    }
  }

  get updates(): number {
    return this.t;
  }

  /** One update with learning rate lr; grads keyed by parameter name (disposed by the caller). */
  step(grads: Record<string, tf.Tensor>, lr: number): void {
    this.t++;
    const { weightDecay: wd } = this.cfg;
    const t = this.t;
    tf.tidy(() => {
      for (const [name, p] of this.params) {
        let g = grads[name];
        if (!g) continue;
        if (wd !== 0 && this.decays.has(name)) g = tf.add(g, tf.mul(p, wd));
        if (this.cfg.kind === 'adam') {
          const b1 = this.cfg.beta1 ?? 0.9,
            b2 = this.cfg.beta2 ?? 0.999,
            eps = this.cfg.eps ?? 1e-8;
          const m = this.slots.get(`m.${name}`)!,
            v = this.slots.get(`v.${name}`)!;
          const m2 = tf.add(tf.mul(m, b1), tf.mul(g, 1 - b1));
          const v2 = tf.add(tf.mul(v, b2), tf.mul(tf.square(g), 1 - b2));
          m.assign(m2);
          v.assign(v2);
          const bc1 = 1 - Math.pow(b1, t),
            bc2 = 1 - Math.pow(b2, t);
          const denom = tf.add(tf.div(tf.sqrt(v2), Math.sqrt(bc2)), eps);
          p.assign(tf.sub(p, tf.mul(tf.div(m2, denom), lr / bc1)));
        } else {
          const buf = this.slots.get(`buf.${name}`)!;
          // torch: the first step sets buf = g; 0.9·0 + g is the same value.
          const b = tf.add(tf.mul(buf, this.cfg.momentum ?? 0.9), g);
          buf.assign(b);
          p.assign(tf.sub(p, tf.mul(b, lr)));
        }
      }
    });
  }

  async save(): Promise<OptimizerState> {
    const slots: Record<string, Float32Array> = {};
    for (const [k, v] of this.slots) slots[k] = (await v.data()) as Float32Array;
    return { kind: this.cfg.kind, t: this.t, slots };
  }

  load(s: OptimizerState): void {
    if (s.kind !== this.cfg.kind)
      throw new Error(`Checkpoint optimiser is ${s.kind}; this fit uses ${this.cfg.kind}.`);
    for (const [k, v] of this.slots) {
      const a = s.slots[k];
      if (!a || a.length !== v.size)
        throw new Error(`Checkpoint optimiser slot ${k} is missing or has the wrong size.`);
      tf.tidy(() => v.assign(tf.tensor(a, v.shape, 'float32')));
    }
    this.t = s.t;
  }

  dispose(): void {
    for (const v of this.slots.values()) v.dispose();
    this.slots.clear();
  }
}

/** A variable that owns `t`'s data (tf.variable leaves the source tensor alive; dispose it). */
export function variableFrom(t: tf.Tensor, trainable: boolean, name?: string): tf.Variable {
  const v = tf.variable(t, trainable, name);
  t.dispose();
  return v;
}
