/** A valid rsb-cell/2 and rsb-run/2, built fresh for every test (tests mutate them). */
export function validCell(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: 'rsb-cell/2',
    protocol: {
      mode: 'rsb',
      version: '1.0.0',
      quirks: 'rsb',
      preset: 'paper',
      options: { takeZero: 'one-per-class', t0Stream: 'shared', scaler: 'split', ssgmmSupport: 'zero' },
      overrides: {},
    },
    dataset: {
      id: 'iris',
      source: 'embedded',
      sha256: '9b79658cba271fcb89e5057cc9c419f9d5b396682cbba6476588f169beb63352',
      N: 150,
      d: 4,
      k: 3,
    },
    setting: 'distribution',
    labels: 5,
    t: 0.6,
    t_index: 3,
    seed: 2,
    algorithm: {
      name: 'lp',
      family: 'statistical',
      hyper: { gamma: 1, maxIter: 10000, kernel: 'rbf', tol: 0.001 },
      options: { gamma: 1, maxIter: 10000, tol: 0.001 },
      init_seed: null,
    },
    split: {
      n_labeled: 15,
      labeled_per_class: [5, 5, 5],
      n_test: 60,
      n_unlabeled: 30,
      n_unlabeled_ood: 0,
      indices_sha256: 'a'.repeat(64),
    },
    outcome: {
      status: 'ok',
      accuracy: 0.9,
      n_correct: 54,
      n_test: 60,
      n_nan_rows: 0,
      flattened_from_t0: false,
    },
    timing: { fit_ms: 12.5, predict_ms: 0.25, steps: 37 },
    env: {
      backend: 'wasm',
      float_precision: 'float32',
      tfjs_version: '4.22.0',
      app_version: '0.1.0',
      prng: 'mt19937-numpy-legacy',
      device: 'node v20 linux',
    },
    subsample: null,
    created_at: '2025-01-31T12:00:00.000Z',
    ...overrides,
  };
}

export function validRun(cells: unknown[] = [validCell()]): Record<string, unknown> {
  return {
    schema: 'rsb-run/2',
    id: 'cli-2025-01-31T12:00:00.000Z',
    created_at: '2025-01-31T12:00:00.000Z',
    finished_at: '2025-01-31T12:05:00.000Z',
    plan: {
      preset: 'paper',
      datasets: ['iris'],
      settings: ['distribution'],
      labels: [5],
      algorithms: ['lp'],
      seeds: [0, 1, 2, 3, 4],
      tIndices: [0, 1, 2, 3, 4, 5],
      mode: 'rsb',
      quirks: 'rsb',
      options: { takeZero: 'one-per-class', t0Stream: 'shared', scaler: 'split', ssgmmSupport: 'zero' },
    },
    env: { runtime: 'node v20.19.0', backends: ['wasm', 'cpu'], adapter: null, shard: '1/1' },
    cells,
  };
}

/** Sets `value` at a dotted path like "outcome.accuracy" or "split.labeled_per_class.1" (undefined deletes). */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  let o = obj as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  const last = keys[keys.length - 1];
  if (value === undefined) delete o[last];
  else o[last] = value;
  return obj;
}
