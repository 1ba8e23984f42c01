/**
 * Deep fits that survive (issue 20, item 4) at the executor / runCell level: a tiny FlexMatch fit
 * on iris is interrupted (aborted) once its first checkpoint is stored, run again by a new
 * executor over the same store, and must end with the same weights, EMA shadow, predicted
 * probabilities (byte for byte) and record (timing aside) as an uninterrupted fit. A checkpoint of
 * anything else is ignored with its reason; a store that fails turns saving off in words and the
 * run goes on.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import type { Estimator } from '../../../src/lib/models/estimator.ts';
import {
  checkpointProblem,
  describePolicy,
  parseCheckpointPolicy,
  saveFailureText,
  type CellCheckpoint,
  type CheckpointChannel,
  type CheckpointPolicy,
  type CheckpointStore,
} from '../../../src/lib/suite/cellCheckpoint.ts';
import { RunExecutor, type ExecutedCell, type Lane } from '../../../src/lib/suite/executor.ts';
import {
  defaultPlanOptions,
  expandPlan,
  type CellSpec,
  type RunPlanSpec,
} from '../../../src/lib/suite/plan.ts';
import { runCell, type AlgorithmEntry, type RunCellContext } from '../../../src/lib/suite/runCell.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import type { Dataset } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

const STEPS = 24;
const EVERY = 8;
const ALGO = 'flexmatch'; // its method state (σ, an Int16Array) travels in the checkpoint too

const plan: RunPlanSpec = {
  preset: 'custom',
  datasets: ['iris'],
  settings: ['distribution'],
  labels: [5],
  algorithms: [ALGO],
  seeds: [0],
  tIndices: [2],
  mode: 'rsb',
  quirks: 'rsb',
  options: defaultPlanOptions('rsb'),
  modelOptions: { [ALGO]: { size: 'tiny', steps: STEPS } },
};
const [cell] = expandPlan(plan, () => false);
const ENV = {
  backend: 'wasm',
  float_precision: 'float32',
  tfjs_version: 'x',
  app_version: 'x',
  device: 'test',
} as const;

let iris: Dataset;
beforeAll(async () => {
  await tf.setBackend('wasm');
  iris = await loadEmbedded('iris');
});

/** What a fit ends with, read before runCell disposes the model. */
interface FitOutcome {
  proba: Float32Array;
  params: Record<string, Float32Array>;
  shadow: Record<string, Float32Array>;
  /** Steps of the progress reports the fit made (a resumed fit reports only after its start). */
  reported: number[];
}

/** The catalogue entry with predictProba wrapped to capture the probabilities and the weights. */
function capturing(out: Partial<FitOutcome>): AlgorithmEntry {
  const entry = getAlgorithm(ALGO);
  return {
    ...entry,
    create: async (a) => {
      const m = (await entry.create(a)) as Estimator & {
        trainer: { weights(w: 'params' | 'shadow'): Promise<Record<string, Float32Array>> };
      };
      const predict = m.predictProba.bind(m);
      m.predictProba = async (X) => {
        out.params = await m.trainer.weights('params');
        out.shadow = await m.trainer.weights('shadow');
        out.proba = await predict(X);
        return out.proba;
      };
      return m;
    },
  };
}

/** A lane that runs cells in this process, as the CLI's does, capturing what the fit ends with. */
function lane(
  out: Partial<FitOutcome>,
  seen: { resumeFrom: number | null }[],
  /** Set to make the running fit die as a crashed worker does (the executor then retries it). */
  crash: { now: boolean },
): Lane {
  let ac: AbortController | null = null;
  return {
    index: 0,
    resource: 'cpu',
    restartable: false,
    backend: 'wasm',
    async run(c: CellSpec, onProgress, checkpoints?: CheckpointChannel): Promise<CellResult> {
      ac = new AbortController();
      seen.push({ resumeFrom: checkpoints?.resumeFrom?.step ?? null });
      out.reported = [];
      const ctx: RunCellContext = {
        now: () => performance.now(),
        isoTime: () => new Date().toISOString(),
        env: ENV,
        signal: ac.signal,
        onProgress: (f, m, e) => {
          if (e?.step !== undefined && e.losses) out.reported!.push(e.step);
          onProgress(f, m);
        },
        liveTensors: () => tf.memory().numTensors,
        checkpoints,
      };
      try {
        return await runCell(iris, 'embedded:data/iris.csv', c, plan, capturing(out), ctx);
      } catch (e) {
        if (!crash.now) throw e;
        crash.now = false;
        throw Object.assign(new Error('worker bench-0 crashed (test)'), { name: 'WorkerCrash' });
      }
    },
    async restart() {},
    cancel() {
      ac?.abort();
    },
    async close() {},
  };
}

/** A store that keeps structured clones, as IndexedDB does (no aliasing of the fit's arrays). */
class MemoryStore implements CheckpointStore {
  readonly map = new Map<string, CellCheckpoint>();
  saves = 0;
  fail: Error | null = null;
  async load(key: string) {
    const c = this.map.get(key);
    return c ? structuredClone(c) : null;
  }
  async save(c: CellCheckpoint) {
    this.saves++;
    if (this.fail) throw this.fail;
    this.map.set(c.key, structuredClone(c));
  }
  async remove(keys: readonly string[]) {
    for (const k of keys) this.map.delete(k);
  }
}

async function execute(o: {
  store?: MemoryStore;
  policy?: CheckpointPolicy;
  /** Abort the run once this many checkpoints are stored. */
  abortAfter?: number;
  /** Crash the fit's lane once this many checkpoints are stored. */
  crashAfter?: number;
}) {
  const out: Partial<FitOutcome> = {};
  const seen: { resumeFrom: number | null }[] = [];
  const stored: ExecutedCell[] = [];
  const notices: string[] = [];
  const ac = new AbortController();
  const crash = { now: false };
  const l = lane(out, seen, crash);
  let saved = 0;
  const ex = new RunExecutor({
    cells: [cell],
    stored: [],
    lanes: [l],
    put: async (b) => void stored.push(...b),
    compute: () => 'deep',
    clock: { now: () => performance.now(), after: () => () => {} },
    signal: ac.signal,
    ...(o.store
      ? {
          checkpoints: {
            store: o.store,
            policy: o.policy ?? { everySteps: EVERY },
            saved: async () => {
              // Interrupt once the checkpoint is stored: the fit throws AbortError at its next tick.
              if (++saved === o.abortAfter) {
                ac.abort();
                l.cancel();
              }
              if (saved === o.crashAfter) {
                crash.now = true;
                l.cancel();
              }
            },
          },
        }
      : {}),
  });
  const outcome = await ex.run({ onNotice: (t) => notices.push(t) });
  return { outcome, out: out as FitOutcome, seen, stored, notices };
}

/** The uninterrupted fit, without checkpoints (made once, compared with by every test). */
let wholeRun: ReturnType<typeof execute> | null = null;
const whole = () => (wholeRun ??= execute({}));

/** A record without the fields that may differ between an interrupted and a whole fit. */
function essence(r: CellResult | null): unknown {
  if (!r) return null;
  const { timing: _t, created_at: _c, ...rest } = r;
  return rest;
}

const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('a deep fit interrupted after a checkpoint resumes bit-identically', () => {
  it('abort after the first checkpoint, rerun: same weights, shadow, probabilities and record', async () => {
    // The whole fit, without checkpoints (a checkpoint is a pure read: the result must not depend on it).
    const w = await whole();
    expect(w.outcome.status).toBe('done');
    expect(w.stored[0].result?.outcome.status, JSON.stringify(w.stored[0].error)).toBe('ok');

    const store = new MemoryStore();
    const cut = await execute({ store, abortAfter: 1 });
    expect(cut.outcome.status).toBe('cancelled');
    expect(cut.stored).toEqual([]);
    const saved = store.map.get(cell.key)!;
    expect(saved.step).toBe(EVERY);
    expect(saved.steps).toBe(STEPS);
    expect(saved.policy).toBe('every 8 steps');
    expect(saved.bytes).toBeGreaterThan(0);
    expect(saved.deep.methodState?.sigma).toBeInstanceOf(Int16Array);

    const resumed = await execute({ store });
    expect(resumed.outcome.status).toBe('done');
    expect(resumed.seen).toEqual([{ resumeFrom: EVERY }]);
    expect(resumed.notices.join('\n')).toContain(`resuming from its checkpoint at step ${EVERY} of ${STEPS}`);
    // It trained from step 8 on: its first loss report is after step 8 (every 1 step at this length).
    expect(Math.min(...resumed.out.reported)).toBeGreaterThan(EVERY);
    // Deleted once the record is stored; a later save replaced the first one (one per cell).
    expect(store.map.size).toBe(0);
    expect(store.saves).toBeGreaterThanOrEqual(2);

    expect(essence(resumed.stored[0].result)).toEqual(essence(w.stored[0].result));
    expect(bytes(resumed.out.proba).equals(bytes(w.out.proba))).toBe(true);
    for (const which of ['params', 'shadow'] as const) {
      const a = resumed.out[which],
        b = w.out[which];
      expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
      for (const k of Object.keys(b)) expect(bytes(a[k]).equals(bytes(b[k])), `${which}.${k}`).toBe(true);
    }
  }, 300_000);

  it('a crashed worker: the retried fit resumes from the checkpoint and agrees bit for bit', async () => {
    const w = await whole();
    const store = new MemoryStore();
    const r = await execute({ store, crashAfter: 2 });
    expect(r.outcome.status).toBe('done');
    // First attempt from step 0, the retry from the second checkpoint (step 16).
    expect(r.seen).toEqual([{ resumeFrom: null }, { resumeFrom: 2 * EVERY }]);
    expect(r.stored[0].attempts).toBe(2);
    expect(store.map.size).toBe(0);
    expect(essence(r.stored[0].result)).toEqual(essence(w.stored[0].result));
    expect(bytes(r.out.proba).equals(bytes(w.out.proba))).toBe(true);
  }, 300_000);

  it('a checkpoint of another fit is ignored with its reason; the fit runs whole and agrees', async () => {
    const store = new MemoryStore();
    await execute({ store, abortAfter: 1 });
    const saved = store.map.get(cell.key)!;
    // The same cell saved on another backend: numerics differ, so it must not be resumed from.
    store.map.set(cell.key, {
      ...saved,
      fingerprint: { ...saved.fingerprint, env: { ...saved.fingerprint.env, backend: 'webgpu' } },
    });
    const w = await whole();
    const r = await execute({ store, policy: null });
    expect(r.notices.join('\n')).toMatch(
      /its saved checkpoint is not used \(its env\.backend is "webgpu", this fit's is "wasm"\); the fit starts from step 0/,
    );
    expect(Math.min(...r.out.reported)).toBe(1);
    expect(essence(r.stored[0].result)).toEqual(essence(w.stored[0].result));
    expect(bytes(r.out.proba).equals(bytes(w.out.proba))).toBe(true);
  }, 300_000);

  it('a checkpoint the trainer cannot restore (a damaged tensor) is refused; the fit starts afresh', async () => {
    const w = await whole();
    const store = new MemoryStore();
    await execute({ store, abortAfter: 1 });
    const saved = store.map.get(cell.key)!;
    // The weights are sound, the shadow is cut short: restore() has written the weights before it
    // finds the damage, so only a fresh trainer gives the whole fit's result.
    const name = Object.keys(saved.deep.shadow)[0];
    saved.deep.shadow[name] = saved.deep.shadow[name].subarray(1);
    const r = await execute({ store, policy: null });
    expect(r.notices.join('\n')).toMatch(
      new RegExp(
        `could not be restored \\(Checkpoint tensor ${name.replace(/[.[\]]/g, '\\$&')} is missing or has the wrong size\\.\\); the fit starts from step 0`,
      ),
    );
    expect(r.stored[0].result?.outcome.status, r.stored[0].error ?? '').toBe('ok'); // no tensor leaked
    expect(essence(r.stored[0].result)).toEqual(essence(w.stored[0].result));
    expect(bytes(r.out.proba).equals(bytes(w.out.proba))).toBe(true);
  }, 300_000);

  it('a store that fails (quota) turns saving off in words; the run goes on and stores its record', async () => {
    const store = new MemoryStore();
    store.fail = Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
    const r = await execute({ store, policy: { everySteps: 4 } });
    expect(r.outcome.status).toBe('done');
    expect(r.stored[0].result?.outcome.status).toBe('ok');
    expect(store.saves).toBe(1); // off after the first failure
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toMatch(
      /^Checkpoints are off for the rest of this run: saving .*'s checkpoint \(\d+\.\d MB\) failed \(the browser's storage quota for this site is full\)\. The run goes on/,
    );
  }, 300_000);
});

describe('checkpoint policy and checks', () => {
  it('parses --checkpoint-every and says the policy in words', () => {
    expect(parseCheckpointPolicy('30s')).toEqual({ everyMs: 30_000 });
    expect(parseCheckpointPolicy('5m')).toEqual({ everyMs: 300_000 });
    expect(parseCheckpointPolicy('100')).toEqual({ everySteps: 100 });
    expect(parseCheckpointPolicy('off')).toBeNull();
    expect(parseCheckpointPolicy('0')).toBeNull();
    expect(() => parseCheckpointPolicy('soon')).toThrow(/not a checkpoint interval: give seconds/);
    expect(() => parseCheckpointPolicy('0.5s')).toThrow(/at least 1 s/);
    expect(() => parseCheckpointPolicy('2.5')).toThrow(/whole number/);
    expect(describePolicy({ everyMs: 30_000 })).toBe('every 30 s of training');
    expect(describePolicy({ everyMs: 300_000 })).toBe('every 5 min of training');
    expect(describePolicy({ everySteps: 1 })).toBe('every 1 step');
    expect(describePolicy(null)).toBe('off');
  });

  it('says a full disk in words', () => {
    const e = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(saveFailureText('iris|x', 38_291_104, e)).toBe(
      "Checkpoints are off for the rest of this run: saving iris|x's checkpoint (37 MB) failed (the disk is full). " +
        'The run goes on; a fit interrupted from now on starts again from its first step.',
    );
  });

  it('names the first problem of a checkpoint that does not fit the cell', () => {
    const fp = {
      algorithm: 'fixmatch',
      dataset: { id: 'iris', sha256: 'a', N: 150, d: 4, k: 3 },
      split: { indices_sha256: 'b', n_labeled: 15, n_unlabeled: 90, n_test: 45 },
      subsample: null,
      data: { nL: 15, nU: 90, d: 4, k: 3 },
      options: { size: 'tiny', steps: 20 },
      init_seed: 0,
      protocol: { mode: 'rsb', version: '1.1.0', quirks: 'rsb', options: {} },
      env: { backend: 'wasm', tfjs_version: '4', app_version: '1' },
    };
    const c = {
      format: 'rac-cell-checkpoint/1',
      key: 'k',
      fingerprint: fp,
      step: 10,
      steps: 20,
      policy: 'every 10 steps',
      savedAt: '',
      bytes: 0,
      deep: { format: 'rac-deep-checkpoint/1', method: 'fixmatch', step: 10 },
    } as unknown as CellCheckpoint;
    expect(checkpointProblem(c, 'k', fp, 20)).toBeNull();
    expect(checkpointProblem(c, 'other', fp, 20)).toBe('it belongs to cell k');
    expect(checkpointProblem(c, 'k', { ...fp, options: { size: 'tiny', steps: 30 } }, 30)).toBe(
      "its options.steps is 20, this fit's is 30",
    );
    expect(checkpointProblem(c, 'k', { ...fp, split: { ...fp.split, indices_sha256: 'z' } }, 20)).toBe(
      'its split.indices_sha256 is "b", this fit\'s is "z"',
    );
    expect(checkpointProblem({ ...c, step: 20 }, 'k', fp, 20)).toBe('its step 20 is outside 1…19');
    expect(checkpointProblem({ ...c, format: 'x' } as unknown as CellCheckpoint, 'k', fp, 20)).toMatch(
      /not a rac-cell-checkpoint\/1 record/,
    );
    expect(
      checkpointProblem({ ...c, deep: { ...c.deep, method: 'ict' } } as CellCheckpoint, 'k', fp, 20),
    ).toBe('its trainer state is for ict, not fixmatch');
  });
});
