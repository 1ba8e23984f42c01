/**
 * Host-side inputs for kernel comparisons across backends (fusedKernels.test.ts in the test process,
 * webgpuKernelsProbe.ts under Dawn): standard normals of a seeded MT19937, and one function run on a
 * named backend that returns every output as host arrays and how many tensors it left behind.
 */
import * as tf from '@tensorflow/tfjs';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';

export interface Host {
  shape: number[];
  data: Float32Array;
}

/** A maker of standard-normal host tensors drawn in call order from MT19937(seed). */
export function hostNormals(seed: number): (shape: number[]) => Host {
  const rng = new MT19937(seed);
  return (shape) => ({
    shape,
    data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
  });
}

/** Runs f on `backend` with the host inputs as tensors; every output back as host arrays. */
export async function onBackend(
  backend: string,
  inputs: Host[],
  f: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[],
): Promise<{ arrays: Float32Array[]; leaked: number }> {
  await tf.setBackend(backend);
  const before = tf.memory().numTensors;
  const ts = inputs.map((h) => tf.tensor(h.data, h.shape));
  const out = tf.tidy(() => {
    const r = f(...ts);
    return Array.isArray(r) ? r : [r];
  });
  const arrays = await Promise.all(out.map(async (t) => (await t.data()) as Float32Array));
  tf.dispose([...ts, ...out]);
  return { arrays, leaked: tf.memory().numTensors - before };
}
