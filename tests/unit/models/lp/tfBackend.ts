/** Test helper: the tfjs backend for these tests. wasm (SIMD, Node) when it loads, else cpu. */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';

export async function useTestBackend(): Promise<string> {
  const want = process.env.LP_TF_BACKEND ?? 'wasm';
  if (tf.getBackend() === want) return want;
  const ok = await tf.setBackend(want).catch(() => false);
  if (!ok) await tf.setBackend('cpu');
  await tf.ready();
  return tf.getBackend();
}
