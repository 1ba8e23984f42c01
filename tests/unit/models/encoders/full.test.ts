/**
 * Full-size parity (skipped in CI; RAC_FULL_PARITY=1 runs it): random roberta-base (125 M
 * parameters, 12 heads) and all-MiniLM-L6-v2-sized encoders written by
 * `make_encoder_fixtures.py --full` to RAC_FULL_DIR (default /tmp/rac-encoders-full), eval forward
 * of a 2 × 16 batch with padding and literal pad ids: last hidden state, `<s>` feature, logits,
 * MiniLM's pooled feature, within 1e-4 relative, on cpu and wasm. With RAC_FULL_TIMING=1 it also
 * times one eval forward of a 16 × 256 batch through the RoBERTa Backbone per backend.
 */
import { existsSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { loadMiniLMWeights, minilmBackbone } from '../../../../src/lib/models/backbone/minilm.ts';
import {
  encoderForward,
  loadRobertaWeights,
  robertaBackbone,
  robertaForSequenceClassification,
  splitTokens,
  tokenRows,
} from '../../../../src/lib/models/backbone/roberta.ts';
import { installWasmBatchMatMul } from '../../../../src/lib/models/deep/batchMatMul.ts';
import { evalInput, initialWithFixtureHead } from './encoderParity.ts';
import { f32, loadFile, loadGoldens, relErr, TOL, worst } from './fixture.ts';

const DIR = process.env.RAC_FULL_DIR ?? '/tmp/rac-encoders-full';
const RUN = process.env.RAC_FULL_PARITY === '1';

describe.skipIf(!RUN).each(['cpu', 'wasm'] as const)('full-size encoder parity on %s', (backend) => {
  it('roberta-base and MiniLM-L6 eval forwards', { timeout: 600_000 }, async () => {
    expect(existsSync(`${DIR}/goldens.json`), `run make_encoder_fixtures.py --full (to ${DIR}) first`).toBe(
      true,
    );
    expect(await tf.setBackend(backend)).toBe(true);
    if (backend === 'wasm') installWasmBatchMatMul();
    const before = tf.memory().numTensors;
    const G = loadGoldens(DIR);
    const errors: Record<string, number> = {};

    const rFile = loadFile(DIR, G.roberta.file);
    const rw = loadRobertaWeights(rFile);
    const re = G.roberta.eval;
    const x = evalInput(re);
    {
      const { ids, mask } = splitTokens(x);
      const P: Record<string, tf.Tensor> = {};
      for (const [name, t] of rw.tensors) P[name] = tf.tensor(t.data, t.shape);
      const h = tf.tidy(() => encoderForward(rw.config, P, '', ids, mask, { noGrad: true }));
      errors['roberta lastHidden'] = relErr(await h.data(), f32(re.lastHidden));
      tf.dispose([ids, mask, h, ...Object.values(P)]);
    }
    const bb = robertaBackbone(rw);
    expect([bb.id, bb.feature, bb.dim]).toEqual(['roberta-base', 'roberta-s-768', 768]);
    const s = bb.forward(x);
    errors['roberta sFeature'] = relErr(await s.data(), f32(re.sFeature!));
    bb.dispose();
    const net = robertaForSequenceClassification(rw, G.roberta.config.num_labels, {
      seqLength: re.seqLength,
    });
    const init = initialWithFixtureHead(net, rFile);
    const W: Record<string, tf.Tensor> = {};
    for (const sp of net.specs()) W[sp.name] = tf.tensor(init.get(sp.name)!, sp.shape);
    const x2 = tf.reshape(x, [re.batch, 2 * re.seqLength]) as tf.Tensor2D;
    const logits = net.forward(W, x2, { noGrad: true });
    errors['roberta logits'] = relErr(await logits.data(), f32(re.logits!));
    tf.dispose([x, x2, s, logits, ...Object.values(W)]);

    const mw = loadMiniLMWeights(loadFile(DIR, G.minilm.file));
    const mb = minilmBackbone(mw);
    expect([mb.id, mb.feature, mb.dim]).toEqual(['minilm-l6', 'minilm-mean-384', 384]);
    const me = G.minilm.eval;
    const xm = evalInput(me);
    const pooled = mb.forward(xm);
    errors['minilm pooled'] = relErr(await pooled.data(), f32(me.pooled!));
    mb.dispose();
    tf.dispose([xm, pooled]);

    console.info(`full-size parity on ${backend}: ${JSON.stringify(errors)}`);
    const [name, e] = worst(errors);
    expect(e, name).toBeLessThanOrEqual(TOL);
    expect(tf.memory().numTensors).toBe(before);
  });

  it.skipIf(process.env.RAC_FULL_TIMING !== '1')(
    'times a 16 × 256 roberta-base eval forward (RAC_FULL_TIMING=1)',
    { timeout: 1_800_000 },
    async () => {
      expect(await tf.setBackend(backend)).toBe(true);
      if (backend === 'wasm') installWasmBatchMatMul();
      const G = loadGoldens(DIR);
      const bb = robertaBackbone(loadRobertaWeights(loadFile(DIR, G.roberta.file)));
      // RAC_FULL_TIMING_BATCH: fewer rows where a shared machine makes 16 too slow (time is linear in n).
      const n = Number(process.env.RAC_FULL_TIMING_BATCH ?? 16),
        L = 256;
      const ids = new Int32Array(n * L),
        mask = new Int32Array(n * L);
      for (let r = 0; r < n; r++) {
        const len = L - 8 * (r % 16); // a little padding, as tokenised news texts have
        for (let j = 0; j < L; j++) {
          ids[r * L + j] =
            j === 0 ? 0 : j < len - 1 ? 1000 + ((r * 7919 + j * 104729) % 49000) : j === len - 1 ? 2 : 1;
          mask[r * L + j] = j < len ? 1 : 0;
        }
      }
      const x = tf.tensor3d(tokenRows(ids, mask, n, L), [n, 2, L]);
      const t0 = performance.now();
      const s = bb.forward(x);
      await s.data();
      const ms = performance.now() - t0;
      console.info(`roberta-base ${n} × ${L} eval forward on ${backend}: ${(ms / 1000).toFixed(1)} s`);
      tf.dispose([x, s]);
      bb.dispose();
    },
  );
});
