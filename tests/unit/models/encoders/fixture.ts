/**
 * The encoder goldens of scripts/fixtures/make_encoder_fixtures.py (tests/fixtures/encoders, or the
 * full-size set it writes to /tmp with --full) and the error measure of the parity tests.
 *
 * Relative error of a tensor: max |ts − torch| / max(max |torch|, 1e-12), i.e. the worst entry's
 * error relative to the tensor's own scale (an all-zero reference compares absolutely).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { parseSafetensors, type SafetensorsFile } from '../../../../src/lib/weights/safetensors.ts';
import { transpose2d } from '../../../../src/lib/weights/weightMap.ts';
import { isLinearWeight } from '../../../../src/lib/models/backbone/roberta.ts';

export const FIXTURES = new URL('../../../fixtures/encoders/', import.meta.url).pathname;
export const TOL = 1e-4;

export interface EvalGolden {
  batch: number;
  seqLength: number;
  ids: number[];
  mask: number[];
  positionIds?: number[];
  lastHidden: string;
  sFeature?: string;
  logits?: string;
  pooled?: string;
}

export interface TrainGolden {
  lr: number;
  momentum: number;
  weightDecay: number;
  decay: string[];
  batches: { ids: number[]; mask: number[]; labels: number[] }[];
  seqLength: number;
  loss: number;
  grads: Record<string, string>;
  losses: number[];
  params: Record<string, string>;
}

export interface ModelGolden {
  config: Record<string, number>;
  file: string;
  fileBytes: number;
  eval: EvalGolden;
  train?: TrainGolden;
}

export interface Goldens {
  generator: string;
  torch: string;
  roberta: ModelGolden;
  minilm: ModelGolden;
}

export function loadGoldens(dir = FIXTURES): Goldens {
  return JSON.parse(readFileSync(join(dir, 'goldens.json'), 'utf8')) as Goldens;
}

export function loadFile(dir: string, name: string): SafetensorsFile {
  return parseSafetensors(new Uint8Array(readFileSync(join(dir, name))));
}

export function f32(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

/**
 * max |a − b| / max(max |b|, floor). `floor` (default 1e-12) is raised where the reference holds
 * values that are zero in exact arithmetic, e.g. the gradient of a key bias (softmax ignores a
 * shift shared by every key): those compare against the scale of the whole set instead.
 */
export function relErr(a: ArrayLike<number>, b: ArrayLike<number>, floor = 1e-12): number {
  if (a.length !== b.length) return Infinity;
  let num = 0,
    den = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= num)) num = d; // NaN propagates
    den = Math.max(den, Math.abs(b[i]));
  }
  return Number.isNaN(num) ? Infinity : num / Math.max(den, floor);
}

/** A tfjs-layout parameter in PyTorch's layout (Linear weights back to [out, in]). */
export function torchLayout(name: string, data: Float32Array, shape: readonly number[]): Float32Array {
  return isLinearWeight(name) ? transpose2d(data, shape).data : data;
}

/** [n, 2, L] input of a golden batch. */
export function tokenTensor(g: { ids: number[]; mask: number[] }, n: number, L: number): tf.Tensor3D {
  const x = new Float32Array(2 * n * L);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < L; j++) {
      x[2 * r * L + j] = g.ids[r * L + j];
      x[(2 * r + 1) * L + j] = g.mask[r * L + j];
    }
  return tf.tensor3d(x, [n, 2, L]);
}

/** max |x| over every array of a set. */
export function scaleOf(arrays: Iterable<ArrayLike<number>>): number {
  let m = 0;
  for (const a of arrays) for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/** Prints the measured errors when RAC_PARITY_REPORT=1 (figures for reviews, silent in CI). */
export function report(title: string, errors: Record<string, number>): void {
  if (process.env.RAC_PARITY_REPORT !== '1') return;
  const top = Object.entries(errors)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, e]) => `${k} ${e.toExponential(2)}`);
  console.info(`${title}: worst ${top.join('; ')}`);
}

/** The worst (name, error) over a set of named comparisons. */
export function worst(errors: Record<string, number>): [string, number] {
  let w: [string, number] = ['', 0];
  for (const [k, e] of Object.entries(errors)) if (!(e <= w[1])) w = [k, e];
  return w;
}
