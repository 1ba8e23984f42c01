/**
 * Image/text runs (`rsb-run/3`) for share, export and compare tests: the committed features-tier
 * record of tests/fixtures/runs/image-features-2.json as a template, expanded to a whole CIFAR-10
 * `feature` panel (every t, so the metrics exist) with the methods and seeds asked for and
 * accuracies from a formula, validated by parseRunV3.
 */
import { readFileSync } from 'node:fs';
import { parseRunV3, type ModalRunRecord } from '../../src/lib/suite/schemaV3.ts';

const TEMPLATE = JSON.parse(
  readFileSync(new URL('../fixtures/runs/image-features-2.json', import.meta.url), 'utf8'),
) as { cells: Record<string, unknown>[] } & Record<string, unknown>;
const T = [0, 0.2, 0.4, 0.6, 0.8, 1];

export interface ModalRunOptions {
  id?: string;
  tier?: 'features' | 'classroom';
  methods?: string[];
  seeds?: number[];
  /** Correct answers of 10 000 at (method index, seed, t index). */
  correct?: (m: number, seed: number, t: number) => number;
}

/** A valid CIFAR-10 · feature image run (one panel, every t). */
export function cifarFeatureRun(o: ModalRunOptions = {}): ModalRunRecord {
  const methods = o.methods ?? ['supervised', 'fixmatch'];
  const seeds = o.seeds ?? [0];
  const tier = o.tier ?? 'features';
  const correct = o.correct ?? ((m, s, t) => 8000 + 300 * m - 150 * t + 7 * s + (m > 0 ? 11 * t * t : 0));
  const base = TEMPLATE.cells[0];
  const cells = methods.flatMap((name, m) =>
    seeds.flatMap((seed) =>
      T.map((t, ti) => {
        const c = structuredClone(base) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        c.protocol.tier = tier;
        if (tier === 'classroom')
          c.backbone = {
            ...c.backbone,
            id: 'mnv3-small',
            source: 'hf:timm/mobilenetv3_small_100.lamb_in1k/model.safetensors',
            feature: 'mnv3s-prelogits-1024',
          };
        c.algorithm.name = name;
        if (name === 'supervised')
          c.algorithm.hyper = { B: 64, S: 10000, emaDecay: 0.999, lr: 0.0005, wd: 0.0005 };
        c.seed = seed;
        c.t = t;
        c.t_index = ti;
        const n = correct(m, seed, ti);
        c.outcome = { ...c.outcome, n_correct: n, accuracy: n / 10_000 };
        c.timing = { ...c.timing, fit_ms: 1000 + 37 * ti + 101 * m };
        c.split = { ...c.split, indices_sha256: (ti + 16 * seed + 160 * m).toString(16).padStart(64, 'a') };
        c.created_at = new Date(Date.UTC(2026, 11, 1, 10, m, ti)).toISOString();
        return c;
      }),
    ),
  );
  const run = {
    ...TEMPLATE,
    id: o.id ?? `image-${tier}-${methods.join('-')}`,
    plan: {
      ...(TEMPLATE.plan as Record<string, unknown>),
      tier,
      datasets: ['cifar10'],
      settings: ['feature'],
      labels: [200],
      algorithms: methods,
      seeds,
      tIndices: [0, 1, 2, 3, 4, 5],
      pairs: undefined,
    },
    cells,
  };
  delete (run.plan as Record<string, unknown>).pairs;
  return parseRunV3(run) as ModalRunRecord;
}
