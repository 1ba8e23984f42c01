/**
 * The PyTorch parity check of the deep family, shared by the vitest suite (cpu, wasm) and the
 * Playwright spec (webgpu in Chromium). Compares against tests/fixtures/deep/parity.json from
 * scripts/fixtures/make_deep_fixtures.py: same initial weights, batches, noise and ICT draws.
 *
 * Error measure per tensor: max |ts − torch| / max |torch| (relative to the tensor's scale).
 */
import * as tf from '@tensorflow/tfjs';
import { trainerConfig } from '../../../../src/lib/models/deep/config.ts';
import {
  forward,
  initWeights,
  paramSpecs,
  type FTShape,
} from '../../../../src/lib/models/deep/ftTransformer.ts';
import { createMethod } from '../../../../src/lib/models/deep/methods/index.ts';
import type { DeepMethodId } from '../../../../src/lib/models/deep/methods/types.ts';
import { DeepTrainer, type BatchDraw } from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import type { ProtocolMode, Quirks } from '../../../../src/lib/types.ts';

export interface ParityRun {
  method: DeepMethodId;
  mode: ProtocolMode;
  quirks: Quirks;
  hyper: Record<string, number>;
  gradTerms: number[];
  grads: Record<string, string>;
  terms: number[][];
  params: Record<string, string>;
  shadow: Record<string, string>;
  draws: { lam: number; perm: number[] }[];
}

export interface ParityFixture {
  shape: FTShape;
  initSeed: number;
  methodSeed: number;
  steps: number;
  batchL: number;
  data: { Xl: string; yl: number[]; Xu: string; k: number; nL: number; nU: number };
  batches: { idxL: number[]; idxU: number[]; zl: number[]; zu: number[][] }[];
  init: Record<string, string>;
  logits: string;
  big: { shape: FTShape; initSeed: number; x: string; logits: string };
  runs: ParityRun[];
}

export function f32(b64: string): Float32Array {
  const bin = atob(b64);
  const u8 = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
  return new Float32Array(u8.buffer);
}

export function relErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let num = 0,
    den = 0;
  for (let i = 0; i < a.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  if (Number.isNaN(num)) return Infinity;
  return den === 0 ? num : num / den;
}

export interface ParityResult {
  /** name → relative error (or absolute where the reference is a plain scalar term). */
  errors: Record<string, number>;
  /** Mask rates and integer draws must match exactly: any mismatch is listed here. */
  mismatches: string[];
}

async function logitsOf(
  shape: FTShape,
  w: Map<string, Float32Array>,
  x: Float32Array,
  rows: number,
): Promise<Float32Array> {
  const P: Record<string, tf.Tensor> = {};
  for (const s of paramSpecs(shape)) P[s.name] = tf.tensor(w.get(s.name)!, s.shape);
  const out = tf.tidy(() => forward(shape, P, tf.tensor2d(x, [rows, shape.features])));
  const a = (await out.data()) as Float32Array;
  tf.dispose([out, ...Object.values(P)]);
  return a;
}

function draw(fx: ParityFixture, it: number, mu: number, weakL: boolean, views: number): BatchDraw {
  const b = fx.batches[it];
  const bU = mu * fx.batchL;
  const d = fx.shape.features;
  const noise: Float64Array[] = [];
  if (weakL) noise.push(Float64Array.from(b.zl));
  for (let v = 0; v < views; v++) noise.push(Float64Array.from(b.zu[v].slice(0, bU * d)));
  return { idxL: Int32Array.from(b.idxL), idxU: Int32Array.from(b.idxU.slice(0, bU)), noise };
}

/** Runs every check of the fixture on the current tf backend. `only` filters runs by method. */
export async function checkParity(
  fx: ParityFixture,
  only?: (r: ParityRun) => boolean,
  { recompute = false }: { recompute?: boolean } = {},
): Promise<ParityResult> {
  const errors: Record<string, number> = {};
  const mismatches: string[] = [];
  const Xl = { data: f32(fx.data.Xl), rows: fx.data.nL, cols: fx.shape.features };
  const Xu = { data: f32(fx.data.Xu), rows: fx.data.nU, cols: fx.shape.features };
  const yl = Int32Array.from(fx.data.yl);
  const k = fx.data.k;

  // Forward at the spec init (fixture size), and one rsb-size forward from init_seed 0.
  errors['forward/init'] = relErr(
    await logitsOf(fx.shape, initWeights(fx.shape, fx.initSeed), Xl.data, Xl.rows),
    f32(fx.logits),
  );
  errors['forward/rsb-size'] = relErr(
    await logitsOf(fx.big.shape, initWeights(fx.big.shape, fx.big.initSeed), f32(fx.big.x), 3),
    f32(fx.big.logits),
  );

  const init = new Map(Object.entries(fx.init).map(([kk, v]) => [kk, f32(v)]));
  for (const run of fx.runs.filter(only ?? (() => true))) {
    const tag = `${run.method}/${run.mode}/${run.quirks}`;
    const make = () => {
      const cfg = trainerConfig(fx.shape.features, k, {
        size: fx.shape,
        mode: run.mode,
        quirks: run.quirks,
        steps: fx.steps,
        batchL: fx.batchL,
        dropoutAttention: 0,
        dropoutFfn: 0,
        progressEvery: 1,
        recompute,
      });
      const method = createMethod(run.method, run.mode, run.hyper);
      const streams = {
        labeled: new MT19937(1),
        unlabeled: new MT19937(2),
        noise: new MT19937(3),
        method: new MT19937(fx.methodSeed),
        dropoutSeed: 0,
      };
      return new DeepTrainer(cfg, method, { Xl, yl, Xu, k }, streams, init);
    };
    const drawFor = (tr: DeepTrainer, it: number) =>
      draw(fx, it, tr.method.mu, tr.method.labeledView === 'weak', tr.method.views.length);

    // Gradients of step 2's loss at the initial weights (fresh fit).
    const g = make();
    try {
      const { grads, terms } = await g.gradients(2, drawFor(g, 2));
      let worst = 0,
        worstName = '';
      for (const [name, ref] of Object.entries(run.grads)) {
        const e = relErr(grads[name], f32(ref));
        if (e > worst) {
          worst = e;
          worstName = name;
        }
      }
      errors[`${tag}/grads(max: ${worstName})`] = worst;
      errors[`${tag}/gradLoss`] = relErr(terms.slice(0, 2), run.gradTerms.slice(0, 2));
      if (Math.abs(terms[2] - run.gradTerms[2]) > 1e-5)
        mismatches.push(`${tag}: gradient-step mask ${terms[2]} vs ${run.gradTerms[2]}`);
    } finally {
      g.dispose();
    }

    // Three optimiser steps.
    const tr = make();
    try {
      const reports: number[][] = [];
      await tr.run({
        drawBatch: (it) => drawFor(tr, it),
        onProgress: (r) => reports.push([r.lossS, r.lossU, r.maskRate]),
      });
      for (let it = 0; it < fx.steps; it++) {
        errors[`${tag}/step${it}/loss`] = relErr(reports[it].slice(0, 2), run.terms[it].slice(0, 2));
        if (Math.abs(reports[it][2] - run.terms[it][2]) > 1e-5)
          mismatches.push(`${tag}: step ${it} mask ${reports[it][2]} vs ${run.terms[it][2]}`);
      }
      for (const which of ['params', 'shadow'] as const) {
        const w = await tr.weights(which);
        let worst = 0,
          worstName = '';
        for (const [name, ref] of Object.entries(run[which])) {
          const e = relErr(w[name], f32(ref));
          if (e > worst) {
            worst = e;
            worstName = name;
          }
        }
        errors[`${tag}/${which}(max: ${worstName})`] = worst;
      }
      // The update itself (θ3 − θ0), which the parameters' own scale could hide: relative to the
      // largest update, after allowing 4 float32 ulps of the weight (both sides store float32).
      const w = await tr.weights('params');
      let worst = 0;
      for (const [name, ref] of Object.entries(run.params)) {
        const r = f32(ref),
          i0 = init.get(name)!,
          a = w[name];
        let num = 0,
          den = 0;
        for (let j = 0; j < r.length; j++) {
          const dRef = r[j] - i0[j];
          num = Math.max(num, Math.abs(a[j] - r[j]) - 4 * 2 ** -23 * Math.abs(r[j]));
          den = Math.max(den, Math.abs(dRef));
        }
        worst = Math.max(worst, den === 0 ? Math.max(num, 0) : Math.max(num, 0) / den);
      }
      errors[`${tag}/update`] = worst;
    } finally {
      tr.dispose();
    }
  }
  return { errors, mismatches };
}
