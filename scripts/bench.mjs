#!/usr/bin/env node
/**
 * npm run bench: the fixed statistical plan (iris + wine, all settings, labels 5 and 10, seeds
 * 0-4, all seven algorithms, every t) run three ways, side by side in one invocation:
 *   browser  the built site in headless Chromium, the worker pool (as a user runs it)
 *   node     the same cells through the CLI core (tfjs WASM backend)
 *   python   scikit-learn LP/LS and xgboost on the same cells (Debian python3), if available
 * Prints per algorithm: cells, total and median cell time (fit + predict), backend; then the
 * performance bar (LP + LS + XGBoost, browser vs Python). Writes bench-results/<stamp>.json
 * (format `rac-bench-bench/1`) and bench-results/latest.json, so runs can be compared:
 *   npm run bench -- --compare bench-results/<older>.json
 * Options: --skip-browser, --skip-node, --skip-python, --workers N, --seeds 0-4, --algorithms lp,ls,xgb.
 * `--modal [options]` runs the image/text bench instead (scripts/bench/modal.mjs, npm run bench:modal).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
if (process.argv.includes('--modal')) {
  // The image/text bench has its own options: hand them all over (parseArgs below would refuse them).
  const { spawnSync } = await import('node:child_process');
  const args = process.argv.slice(2).filter((a) => a !== '--modal');
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/bench/modal.mjs'), ...args], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}
const { values: opt } = parseArgs({
  options: {
    'skip-browser': { type: 'boolean' },
    'skip-node': { type: 'boolean' },
    'skip-python': { type: 'boolean' },
    workers: { type: 'string' },
    seeds: { type: 'string', default: '0-4' },
    compare: { type: 'string' },
    port: { type: 'string', default: '4199' },
    algorithms: { type: 'string' },
  },
});

const ALGORITHMS = opt.algorithms
  ? opt.algorithms.split(',')
  : ['xgb', 'ssgmm', 'tsvm', 'lp', 'ls', 'tritraining', 'assemble'];
const seedList = (() => {
  const [a, b] = opt.seeds.split('-').map(Number);
  return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
})();
const SELECTION = {
  datasets: ['iris', 'wine'],
  settings: ['distribution', 'feature', 'label'],
  labels: [5, 10],
  algorithms: ALGORITHMS,
  seeds: seedList,
  tIndices: [0, 1, 2, 3, 4, 5],
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
};

/** Per algorithm from result records: fitted cells only (derived baseline cells cost nothing). */
function summarise(records) {
  const by = {};
  for (const c of records) {
    if (c.outcome.flattened_from_t0) continue;
    const a = (by[c.algorithm.name] ??= { cells: 0, ms: [], failed: 0, backends: new Set() });
    a.cells++;
    a.ms.push(c.timing.fit_ms + c.timing.predict_ms);
    if (c.outcome.status !== 'ok') a.failed++;
    a.backends.add(c.env.backend);
  }
  return Object.fromEntries(
    Object.entries(by).map(([k, v]) => [
      k,
      {
        cells: v.cells,
        failed: v.failed,
        totalMs: v.ms.reduce((s, x) => s + x, 0),
        medianMs: median(v.ms),
        backend: [...v.backends].join('+'),
      },
    ]),
  );
}

async function benchBrowser(algorithms = ALGORITHMS, workersOpt = opt.workers) {
  const { preview, build } = await import('vite');
  const outDir = join(ROOT, '.cache', 'dist-bench');
  if (!benchBrowser.built) {
    await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    benchBrowser.built = true;
  }
  const server = await preview({
    root: ROOT,
    logLevel: 'warn',
    build: { outDir },
    preview: { port: Number(opt.port), strictPort: true },
  });
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--enable-unsafe-webgpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${opt.port}/#/run`);
    await page.waitForFunction(() => window.__racRun?.runSelection);
    // Long tasks with their start, and the streaming window marked by the page's own DOM (first
    // saved cell .. phase "done"), so the hook's final hand-over of all records is not counted.
    await page.evaluate(() => {
      const w = window;
      w.__bench = { tasks: [], firstProgress: null, runEnd: null };
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) w.__bench.tasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
      new MutationObserver(() => {
        const p = document.querySelector('[data-testid="run-progress"]');
        const ph = document.querySelector('[data-testid="run-phase"]');
        if (w.__bench.firstProgress === null && p && Number(p.getAttribute('data-done')) > 0)
          w.__bench.firstProgress = performance.now();
        if (w.__bench.runEnd === null && ph?.getAttribute('data-phase') === 'done')
          w.__bench.runEnd = performance.now();
      }).observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['data-done', 'data-phase'],
      });
    });
    const workers = workersOpt ? Number(workersOpt) : undefined;
    const t0 = performance.now();
    const out = await page.evaluate(
      ([sel, w]) => window.__racRun.runSelection(sel, w),
      [{ ...SELECTION, algorithms }, workers],
    );
    const wallMs = performance.now() - t0;
    const lt = await page.evaluate(() => {
      const settled = performance.getEntriesByName('rac-run-settled').at(-1)?.startTime ?? null;
      const b = window.__bench;
      if (settled !== null && (b.runEnd === null || settled < b.runEnd)) b.runEnd = settled;
      return b;
    });
    if (out.phase !== 'done') throw new Error(`browser run ended ${out.phase}: ${out.error}`);
    const ua = await page.evaluate(() => navigator.userAgent);
    const streaming = lt.tasks.filter(
      (t) =>
        lt.firstProgress !== null &&
        t.start >= lt.firstProgress &&
        (lt.runEnd === null || t.start < lt.runEnd),
    );
    return {
      runtime: ua,
      workers: out.workers,
      wallMs,
      inPageWallMs: out.wallSeconds * 1000,
      perAlgorithm: summarise(out.results),
      cells: out.results.length,
      longTasksOver50ms: lt.tasks.length,
      longestTaskMs: Math.max(0, ...lt.tasks.map((t) => t.duration)),
      streamingLongTasks: streaming.length,
      streamingLongestMs: Math.max(0, ...streaming.map((t) => t.duration)),
      // Where each long task fell, in ms from the first saved cell (negative: before it).
      longTaskTimeline: {
        runEndMs: lt.runEnd === null || lt.firstProgress === null ? null : lt.runEnd - lt.firstProgress,
        tasks: lt.tasks.map((t) => ({
          atMs: Math.round(t.start - (lt.firstProgress ?? 0)),
          ms: Math.round(t.duration),
        })),
      },
    };
  } finally {
    await browser.close();
    await new Promise((r) => server.httpServer.close(r));
  }
}

async function benchNode() {
  const out = join(tmpdir(), `rac-bench-node-${process.pid}.json`);
  const t0 = performance.now();
  await run(
    process.execPath,
    [
      join(ROOT, 'bin/rac-bench.mjs'),
      'run',
      '--dataset',
      'iris,wine',
      '--setting',
      'all',
      '--labels',
      '5,10',
      '--algorithms',
      ALGORITHMS.join(','),
      '--seeds',
      opt.seeds,
      '--t',
      'all',
      '--out',
      out,
      '--quiet',
    ],
    { cwd: ROOT, maxBuffer: 1 << 28 },
  );
  const wallMs = performance.now() - t0;
  const runRecord = JSON.parse(readFileSync(out, 'utf8'));
  return {
    runtime: `node ${process.version}`,
    workers: 1,
    wallMs,
    perAlgorithm: summarise(runRecord.cells),
    cells: runRecord.cells.length,
  };
}

async function benchPython() {
  if (!existsSync('/usr/bin/python3')) return null;
  try {
    const t0 = performance.now();
    const { stdout } = await run(
      '/usr/bin/python3',
      [join(ROOT, 'scripts/bench/python_baseline.py'), 'iris,wine', String(seedList.length)],
      { cwd: ROOT, maxBuffer: 1 << 26 },
    );
    const wallMs = performance.now() - t0;
    const res = JSON.parse(stdout);
    const by = {};
    for (const c of res.cells) (by[c.algorithm] ??= []).push(c.fit_ms + c.predict_ms);
    return {
      runtime: res.runtime,
      workers: 1,
      wallMs,
      perAlgorithm: Object.fromEntries(
        Object.entries(by).map(([k, v]) => [
          k,
          {
            cells: v.length,
            failed: 0,
            totalMs: v.reduce((s, x) => s + x, 0),
            medianMs: median(v),
            backend: 'python',
          },
        ]),
      ),
    };
  } catch (e) {
    console.error(`python side skipped: ${e.message.split('\n')[0]}`);
    return null;
  }
}

function table(name, side) {
  if (!side) return;
  console.log(
    `\n${name}: ${side.runtime} — ${side.workers} worker(s), wall ${(side.wallMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `  ${'algorithm'.padEnd(12)}${'cells'.padStart(6)}${'total s'.padStart(10)}${'median ms'.padStart(11)}  backend`,
  );
  for (const [k, v] of Object.entries(side.perAlgorithm)) {
    console.log(
      `  ${k.padEnd(12)}${String(v.cells).padStart(6)}${(v.totalMs / 1000).toFixed(2).padStart(10)}${v.medianMs.toFixed(1).padStart(11)}  ${v.backend}${v.failed ? `  (${v.failed} failed)` : ''}`,
    );
  }
  if (side.longTasksOver50ms !== undefined) {
    console.log(
      `  main-thread long tasks > 50 ms: ${side.streamingLongTasks} while cells streamed in (longest ${side.streamingLongestMs.toFixed(0)} ms); ` +
        `${side.longTasksOver50ms} in all, page load and the final hand-over of every record to the script included (longest ${side.longestTaskMs.toFixed(0)} ms)`,
    );
  }
}

const BAR = ['lp', 'ls', 'xgb'];
const barMs = (side) => (side ? BAR.reduce((s, a) => s + (side.perAlgorithm[a]?.totalMs ?? NaN), 0) : NaN);

const result = {
  format: 'rac-bench-bench/1',
  created_at: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model },
  plan: SELECTION,
};
if (!opt['skip-browser']) result.browser = await benchBrowser();
if (!opt['skip-node']) result.node = await benchNode();
if (!opt['skip-python']) result.python = await benchPython();
table('Browser (headless Chromium, worker pool)', result.browser);
table('Node (CLI core)', result.node);
table('Python (scikit-learn / xgboost, one process)', result.python);
if (result.python && !opt['skip-browser'] && BAR.every((a) => ALGORITHMS.includes(a))) {
  // The bar's own browser passes: only LP, LS and XGBoost cells, with the default pool (wall
  // time, what a user waits for) and with one worker (summed cell time without core sharing).
  result.barBrowserPool = await benchBrowser(BAR, opt.workers);
  result.barBrowserOneWorker = await benchBrowser(BAR, '1');
  table('Bar pass: browser, LP + LS + XGBoost only, default pool', result.barBrowserPool);
  table('Bar pass: browser, LP + LS + XGBoost only, one worker', result.barBrowserOneWorker);
}
if (result.python) {
  result.bar = {
    algorithms: BAR,
    pythonMs: barMs(result.python),
    browserMs: barMs(result.browser),
    nodeMs: barMs(result.node),
  };
  result.bar.browserOverPython = result.bar.browserMs / result.bar.pythonMs;
  if (result.barBrowserPool) {
    result.bar.browserPoolWallMs = result.barBrowserPool.wallMs;
    result.bar.browserPoolWallOverPython = result.barBrowserPool.wallMs / result.bar.pythonMs;
    result.bar.browserOneWorkerMs = barMs(result.barBrowserOneWorker);
    result.bar.browserOneWorkerOverPython = result.bar.browserOneWorkerMs / result.bar.pythonMs;
  }
  result.bar.nodeOverPython = result.bar.nodeMs / result.bar.pythonMs;
  console.log(
    `\nBar (LP + LS + XGBoost, summed cell time): python ${(result.bar.pythonMs / 1000).toFixed(2)} s, ` +
      `browser ${(result.bar.browserMs / 1000).toFixed(2)} s (ratio ${result.bar.browserOverPython.toFixed(2)}), ` +
      `node ${(result.bar.nodeMs / 1000).toFixed(2)} s (ratio ${result.bar.nodeOverPython.toFixed(2)}).`,
  );
  if (result.barBrowserPool) {
    console.log(
      `Bar, browser passes of LP + LS + XGBoost alone: wall ${(result.bar.browserPoolWallMs / 1000).toFixed(2)} s with the pool ` +
        `(ratio ${result.bar.browserPoolWallOverPython.toFixed(2)} to Python's fit time), summed cell time with one worker ` +
        `${(result.bar.browserOneWorkerMs / 1000).toFixed(2)} s (ratio ${result.bar.browserOneWorkerOverPython.toFixed(2)}); the bar is <= 1.`,
    );
  }
}
if (opt.compare) {
  const old = JSON.parse(readFileSync(opt.compare, 'utf8'));
  console.log(`\nCompared with ${opt.compare} (${old.created_at}): summed cell time ratio new/old`);
  for (const side of ['browser', 'node', 'python']) {
    if (!result[side] || !old[side]) continue;
    for (const [k, v] of Object.entries(result[side].perAlgorithm)) {
      const o = old[side].perAlgorithm[k];
      if (o) console.log(`  ${side.padEnd(8)}${k.padEnd(12)}${(v.totalMs / o.totalMs).toFixed(2)}`);
    }
  }
}
mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
const stamp = result.created_at.replace(/[:.]/g, '-');
writeFileSync(join(ROOT, 'bench-results', `${stamp}.json`), JSON.stringify(result, null, 2));
writeFileSync(join(ROOT, 'bench-results', 'latest.json'), JSON.stringify(result, null, 2));
console.log(`\nSaved bench-results/${stamp}.json`);
