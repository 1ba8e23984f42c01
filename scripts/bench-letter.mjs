#!/usr/bin/env node
/**
 * npm run bench:letter — letter cells side by side in one invocation: this project (the CLI core
 * under Node, tfjs WASM) and scikit-learn 1.2.1 (Debian python3) for LP, LS and TSVM (TSVM in
 * Python: the LAMDA-SSL procedure on sklearn's SVC, one-vs-rest, capped at --cap-s seconds).
 * Cell by cell: ours, then Python, so both see the same machine load; prints seconds, the ratio
 * sklearn / ours, accuracies (LP/LS must equal sklearn's loop) and n_iter, and writes
 * bench-results/letter-<stamp>.json. `--t largest` (the default) takes, per setting and labels, the
 * t of the largest graph (L ∪ U rows): distribution t 0, feature t 0, label t 0.6 on seed 0.
 * A Python TSVM stopped at --cap-s is shown as "≈" the time projected from the classes it finished.
 *
 *   npm run bench:letter -- [--settings distribution,feature,label] [--labels 5,10] [--t largest]
 *     [--seed 0] [--algorithms lp,ls,tsvm] [--cap-s 900] [--skip-python] [--data-dir tests/fixtures/data]
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const { values: opt } = parseArgs({
  options: {
    settings: { type: 'string', default: 'distribution,feature,label' },
    labels: { type: 'string', default: '5,10' },
    t: { type: 'string', default: 'largest' },
    seed: { type: 'string', default: '0' },
    algorithms: { type: 'string', default: 'lp,ls,tsvm' },
    'cap-s': { type: 'string', default: '900' },
    'skip-python': { type: 'boolean' },
    'data-dir': { type: 'string', default: join(ROOT, 'tests/fixtures/data') },
  },
});

const T_GRID = [0, 0.2, 0.4, 0.6, 0.8, 1];

/** `rac-bench SUBCOMMAND --dataset letter … --data-dir DIR` in a child process; resolves with its stdout. */
const racBenchLetter = (subcommand, args) =>
  run(
    process.execPath,
    [
      join(ROOT, 'bin/rac-bench.mjs'),
      subcommand,
      '--dataset',
      'letter',
      ...args,
      '--data-dir',
      opt['data-dir'],
    ],
    { cwd: ROOT, maxBuffer: 1 << 28 },
  );

/** The grid t whose split has the most L ∪ U rows (the first of equals), from `rac-bench split`. */
async function largestT(setting, labels) {
  const { stdout } = await racBenchLetter('split', [
    '--setting',
    setting,
    '--labels',
    String(labels),
    '--seeds',
    opt.seed,
    '--t',
    'all',
  ]);
  let best = null;
  for (const c of JSON.parse(stdout)) {
    const n = c.labeled.length + c.unlabeled.length;
    if (!best || n > best.n) best = { t: c.t, n };
  }
  return best.t;
}

const rows = [];
const fmt = (ms) => (ms == null ? '–' : (ms / 1000).toFixed(1));
console.log(
  'setting       labels t   algo   n      ours s   sklearn s  sklearn/ours  acc ours  acc sklearn  n_iter ours/sklearn',
);
for (const setting of opt.settings.split(',')) {
  for (const labels of opt.labels.split(',').map(Number)) {
    const t = opt.t === 'largest' ? await largestT(setting, labels) : Number(opt.t);
    const tIndex = T_GRID.indexOf(t);
    if (tIndex < 0) throw new Error(`--t ${opt.t}: not a grid value (${T_GRID.join(', ')}) or "largest"`);
    for (const algo of opt.algorithms.split(',')) {
      const out = join(tmpdir(), `rac-bench-letter-${process.pid}.json`);
      const t0 = performance.now();
      await racBenchLetter('run', [
        '--setting',
        setting,
        '--labels',
        String(labels),
        '--algorithms',
        algo,
        '--seeds',
        opt.seed,
        '--t',
        String(t),
        '--out',
        out,
        '--quiet',
      ]);
      const wallMs = performance.now() - t0;
      const cell = JSON.parse(readFileSync(out, 'utf8')).cells[0];
      const ours = {
        ms: cell.timing.fit_ms + cell.timing.predict_ms,
        wallMs,
        accuracy: cell.outcome.accuracy,
        nIter: cell.timing.steps,
        status: cell.outcome.status,
        n: cell.split.n_labeled + cell.split.n_unlabeled,
      };
      let py = null;
      if (!opt['skip-python'] && existsSync('/usr/bin/python3')) {
        const { stdout } = await run(
          '/usr/bin/python3',
          [
            join(ROOT, 'scripts/bench/python_letter.py'),
            setting,
            String(labels),
            String(tIndex),
            opt.seed,
            algo,
            opt['cap-s'],
          ],
          { cwd: ROOT, maxBuffer: 1 << 26 },
        );
        const r = JSON.parse(stdout.trim().split('\n').pop());
        py = {
          // A capped run: the time projected from the classes it finished (a lower bound if none).
          ms:
            r.capped && r.classes_done > 0
              ? ((r.fit_ms + r.predict_ms) * r.classes) / r.classes_done
              : r.fit_ms + r.predict_ms,
          accuracy: r.accuracy,
          nIter: r.n_iter ?? null,
          capped: r.capped ?? false,
        };
      }
      const row = {
        setting,
        labels,
        t,
        seed: Number(opt.seed),
        algorithm: algo,
        ours,
        python: py,
        ratio: py ? py.ms / ours.ms : null,
      };
      rows.push(row);
      const mark = py?.capped ? '≈' : '';
      const ratio = py ? `${mark}${row.ratio.toFixed(1)}×` : '–';
      console.log(
        `${setting.padEnd(13)} ${String(labels).padEnd(6)} ${String(t).padEnd(3)} ${algo.padEnd(6)} ${String(ours.n).padEnd(6)} ${fmt(ours.ms).padStart(7)} ` +
          `${mark + fmt(py?.ms)}`.padStart(11) +
          ` ${ratio.padStart(12)}  ${String(ours.accuracy?.toFixed(4)).padEnd(8)}  ` +
          `${String(py?.accuracy?.toFixed?.(4) ?? '–').padEnd(11)}  ${ours.nIter}/${py?.nIter ?? '–'}`,
      );
    }
  }
}
mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
const file = join(ROOT, 'bench-results', `letter-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  JSON.stringify({ format: 'rac-bench-bench-letter/1', node: process.version, rows }, null, 1),
);
console.log(`\nwritten ${file}`);
