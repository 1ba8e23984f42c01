/**
 * The image panel tests' stand-in backbone checkpoint (unit CLI tests and e2e alike): two 3×3
 * convs, conv1 3→4 and conv2 4→8, weights and biases 0.5 · N(0, 1) drawn from MT19937(7) in that
 * order, as safetensors bytes: a "ResNet" small enough to extract banks in seconds.
 */
import { mt } from '../../src/lib/protocol/rng.ts';
import { writeSafetensors } from '../unit/weights/helpers.ts';

export function tinyConvWeights(): Uint8Array {
  const rng = mt(7);
  const w = (n: number) => Array.from({ length: n }, () => 0.5 * rng.normal());
  return writeSafetensors({
    'conv1.weight': { dtype: 'F32', shape: [4, 3, 3, 3], data: w(108) },
    'conv1.bias': { dtype: 'F32', shape: [4], data: w(4) },
    'conv2.weight': { dtype: 'F32', shape: [8, 4, 3, 3], data: w(288) },
    'conv2.bias': { dtype: 'F32', shape: [8], data: w(8) },
  });
}
