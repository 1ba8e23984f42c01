/**
 * A network's running statistics (BatchNorm buffers, network.ts `buffers`) as the trainer steers
 * them in the `finetune` tier (PROTOCOL-IMAGE-TEXT.md §7.3), reproducing PyTorch under LAMDA's
 * `Bn_Controller`:
 * - `freeze`: a forward whose updates PyTorch undoes (`freeze_bn` … `unfreeze_bn` around the
 *   unlabeled forwards of PseudoLabel, PiModel, MeanTeacher and ICT): snapshot, then restore;
 * - `defer`: a teacher forward that PyTorch runs after the labeled forward (MeanTeacher's and ICT's
 *   shadow forwards, training mode, not frozen), which the trainer must run before the gradient
 *   forward because the student's inputs depend on it. Its update is linear in the buffers —
 *   b ← (1 − m)·b + m·s — so the forward's contribution m·s = b' − (1 − m)·b₀ is kept and applied
 *   after the labeled forward, giving PyTorch's order: (1 − m)·((1 − m)·b₀ + m·s_L) + m·s_T.
 * Every method returns tensors inside the caller's tidy scope.
 */
import * as tf from '@tensorflow/tfjs';

export class RunningStats {
  private readonly vars: tf.Variable[];

  constructor(
    buffers: ReadonlyMap<string, tf.Variable>,
    private readonly momentum: number,
  ) {
    if (!(momentum > 0 && momentum <= 1))
      throw new RangeError(`RunningStats: momentum must be in (0, 1]; got ${momentum}.`);
    this.vars = [...buffers.values()];
  }

  get size(): number {
    return this.vars.length;
  }

  /** Copies of the buffers' current values. */
  snapshot(): tf.Tensor[] {
    return this.vars.map((v) => tf.clone(v));
  }

  restore(snap: readonly tf.Tensor[]): void {
    this.vars.forEach((v, i) => v.assign(snap[i]));
  }

  /** Runs `f` and undoes its updates (Bn_Controller's freeze / unfreeze). */
  frozen<T>(f: () => T): T {
    const snap = this.snapshot();
    try {
      return f();
    } finally {
      this.restore(snap);
    }
  }

  /** Runs `f`, undoes its updates, and returns them as contributions for `apply`. */
  deferred<T>(f: () => T): { value: T; contribution: tf.Tensor[] } {
    const before = this.snapshot();
    const value = f();
    const keep = 1 - this.momentum;
    const contribution = this.vars.map((v, i) => tf.sub(v, tf.mul(before[i], keep)));
    this.restore(before);
    return { value, contribution };
  }

  /** b ← (1 − m)·b + c: a deferred forward's update, now. */
  apply(contribution: readonly tf.Tensor[]): void {
    const keep = 1 - this.momentum;
    this.vars.forEach((v, i) => v.assign(tf.add(tf.mul(v, keep), contribution[i])));
  }
}
