/** tfjs under Node: the WASM backend (SIMD, about 35x faster than the pure-JS cpu backend here). */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';

export async function initNodeBackend(prefer: 'wasm' | 'cpu' = 'wasm'): Promise<'wasm' | 'cpu'> {
  if (prefer === 'wasm') {
    try {
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        return 'wasm';
      }
    } catch {
      // fall through to cpu
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return 'cpu';
}

export const TFJS_VERSION: string = tf.version.tfjs;
