#!/usr/bin/env node
/**
 * Reliability drill (issue 12), not part of CI: reruns the interruption and kill-during-write
 * checks and prints "resumes X/Y, cells lost, corrupted files".
 *
 *   npm run drill [-- --kills 6 --seed 1 --browser 1 --port 4207]
 *
 * It prints "resumes X/Y, cells lost, corrupted files, short writes lost".
 *
 * 1. CLI kills: `rac-bench run --out F` on a 270-cell plan is SIGKILLed at seeded random moments
 *    (0–300 ms after a random cell count is reported),
 *    then the same command is run again to the end. A resume is a rerun that reports cells already
 *    done ("Resuming: X of N"); cells lost = cells reported finished before the kill that the rerun
 *    did not take over; the final file must hold every cell of the plan once.
 * 2. Kill during the final write: `run` and `merge` with a previous valid file at --out are killed
 *    in the middle of writing the result JSON, just before and just after the rename onto --out
 *    (scripts/drill/killHook.mjs). Corrupted = --out is neither the old file nor a complete new one.
 * 3. Short writes: `run` and `merge` with a previous valid file at --out on a disk that fills up
 *    while the result JSON is written (scripts/drill/shortWriteHook.mjs: a short write, then
 *    ENOSPC). Lost = the command claimed success, or --out is no longer the old file, or a temp
 *    file was left, or (run) the journal is gone; then the same command without the fault must
 *    finish the file (run: resuming every cell from the journal).
 * 4. Browser (optional, --browser N): the e2e "reload mid-run" check repeated N times.
 * Works only through the CLI's interface (flags, stderr lines, the files), so it checks whatever
 * executor is on the branch.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/rac-bench.mjs');
const hook = join(root, 'scripts/drill/killHook.mjs');
const shortHook = join(root, 'scripts/drill/shortWriteHook.mjs');
const { values: opt } = parseArgs({
  options: {
    kills: { type: 'string', default: '6' },
    seed: { type: 'string', default: '1' },
    browser: { type: 'string', default: '0' },
    port: { type: 'string', default: '4173' },
  },
});
const work = mkdtempSync(join(tmpdir(), 'rac-drill-'));

/** A small seeded generator (mulberry32): the kill moments repeat for a seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(Number(opt.seed));

const PLAN = [
  '--dataset',
  'iris',
  '--setting',
  'all',
  '--labels',
  '5',
  '--algorithms',
  'lp,ls,ssgmm',
  '--seeds',
  '0-4',
  '--t',
  'all',
];
const SMALL = [
  '--dataset',
  'wine',
  '--setting',
  'distribution',
  '--labels',
  '5',
  '--algorithms',
  'ls',
  '--seeds',
  '0-1',
  '--t',
  'all',
];

/**
 * Runs rac-bench. `killAtCells` sends SIGKILL `killDelayMs` after the CLI has reported that many
 * finished cells (a moment inside the run whatever the machine's speed). Resolves with stderr,
 * exit code and signal.
 */
function cli(args, { killAtCells = null, killDelayMs = 0, env = {} } = {}) {
  return new Promise((res) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let timer = null;
    child.stderr.on('data', (d) => {
      stderr += d;
      if (killAtCells !== null && timer === null && cellsReported(stderr) >= killAtCells)
        timer = setTimeout(() => child.kill('SIGKILL'), killDelayMs);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      res({ stderr, code, signal, ms: Date.now() - t0 });
    });
  });
}

/**
 * Cells the CLI reported finished: "· d/N cells ·" (a line per fit with --verbose), or the older
 * "[d/N]" and "[f/F fits, d/N cells]".
 */
function cellsReported(stderr) {
  let done = 0;
  for (const m of stderr.matchAll(/\[(?:\d+\/\d+ fits, )?(\d+)\/(\d+)(?: cells)?\]|· (\d+)\/(\d+) cells ·/g))
    done = Math.max(done, Number(m[1] ?? m[3]));
  return done;
}
const resumedFrom = (stderr) => Number(/Resuming: (\d+) of \d+/.exec(stderr)?.[1] ?? 0);

/** The run file at `path`: null when missing, 'corrupt' when unreadable, else the parsed run. */
function readRun(path) {
  if (!existsSync(path)) return null;
  try {
    const run = JSON.parse(readFileSync(path, 'utf8'));
    if (!/^rsb-run\//.test(run.schema) || !Array.isArray(run.cells)) return 'corrupt';
    return run;
  } catch {
    return 'corrupt';
  }
}
const keyOf = (c) => `${c.dataset.id}|${c.setting}|${c.labels}|${c.algorithm.name}|${c.t_index}|${c.seed}`;
const clean = (out) => {
  for (const f of [out, `${out}.journal`]) rmSync(f, { force: true });
};

const log = (s) => process.stdout.write(`${s}\n`);
log(`RAC Bench reliability drill (seed ${opt.seed}, work folder ${work})`);

// Baseline: the plan's size and duration uninterrupted.
const base = join(work, 'base.json');
const b = await cli(['run', ...PLAN, '--out', base, '--quiet']);
const baseRun = readRun(base);
if (b.code !== 0 || !baseRun || baseRun === 'corrupt') {
  log(`The uninterrupted run failed (exit ${b.code}):\n${b.stderr}`);
  process.exit(2);
}
const N = baseRun.cells.length;
log(`Plan: ${N} cells, ${(b.ms / 1000).toFixed(1)} s uninterrupted (with process start).`);

// 1. SIGKILL at random moments, then rerun.
let trials = 0;
let resumes = 0;
let lost = 0;
let incomplete = 0;
const kills = Number(opt.kills);
for (let i = 0; i < kills; i++) {
  const out = join(work, `kill-${i}.json`);
  clean(out);
  const target = 1 + Math.floor(random() * (N - 2));
  const delay = Math.round(random() * 300);
  // --verbose: a line per fit with the cells done, so the kill lands at a chosen cell count.
  const k = await cli(['run', ...PLAN, '--out', out, '--verbose'], {
    killAtCells: target,
    killDelayMs: delay,
  });
  const before = cellsReported(k.stderr);
  const r = await cli(['run', ...PLAN, '--out', out]);
  const from = resumedFrom(r.stderr);
  const run = readRun(out);
  const keys = run && run !== 'corrupt' ? new Set(run.cells.map(keyOf)) : new Set();
  const complete = r.code === 0 && keys.size === N && run.cells.length === N;
  if (!complete) incomplete++;
  if (k.signal === 'SIGKILL' && before > 0) {
    trials++;
    if (from > 0) resumes++;
    lost += Math.max(0, before - from);
  }
  log(
    `  kill ${i + 1}: ${delay} ms after cell ${target}, ${before} cells reported${k.signal === 'SIGKILL' ? '' : ' (finished before the kill)'}; ` +
      `rerun resumed ${from}, wrote ${run === 'corrupt' ? 'a corrupt file' : `${keys.size}/${N} cells`}`,
  );
  clean(out);
}
log(`CLI kills: resumes ${resumes}/${trials}, cells lost ${lost}, reruns incomplete ${incomplete}/${kills}`);

// 2. Kill during the final write of run and merge, with a previous file at --out.
const shard = (i) => join(work, `shard-${i}.json`);
for (const i of [1, 2]) await cli(['run', ...SMALL, '--shard', `${i}/2`, '--out', shard(i), '--quiet']);
const old = join(work, 'old.json');
await cli(['run', ...SMALL, '--seeds', '7', '--out', old, '--quiet']);
const oldText = readFileSync(old, 'utf8');
let writes = 0;
let corrupted = 0;
let landed = 0;
for (const cmd of ['run', 'merge']) {
  for (const mode of ['mid-write', 'before-rename', 'after-rename']) {
    const out = join(work, `write-${cmd}-${mode}.json`);
    clean(out);
    copyFileSync(old, out);
    const args =
      cmd === 'run'
        ? ['run', ...SMALL, '--out', out, '--quiet']
        : ['merge', shard(1), shard(2), '--out', out];
    const r = await cli(args, {
      env: { NODE_OPTIONS: `--import ${hook}`, DRILL_KILL_MODE: mode, DRILL_KILL_OUT: resolve(out) },
    });
    const killed = r.signal === 'SIGKILL';
    if (killed) landed++;
    writes++;
    const now = existsSync(out) ? readFileSync(out, 'utf8') : null;
    const run = readRun(out);
    const state =
      now === oldText
        ? 'old file intact'
        : run === null
          ? 'file gone'
          : run === 'corrupt'
            ? 'CORRUPT'
            : `new file, ${run.cells.length} cells`;
    if (now !== oldText && (run === null || run === 'corrupt')) corrupted++;
    log(
      `  ${cmd} ${mode}: ${killed ? 'killed' : `not killed (exit ${r.code}: the kill point was never reached)`} -> ${state}`,
    );
    clean(out);
  }
}
log(
  `Kill during the final write: corrupted files ${corrupted}/${writes} (kill point reached ${landed}/${writes})`,
);

// 3. A disk that fills up during the final write of run and merge, with a previous file at --out.
let shortCases = 0;
let shortLost = 0;
for (const cmd of ['run', 'merge']) {
  const out = join(work, `short-${cmd}.json`);
  clean(out);
  copyFileSync(old, out);
  const args = cmd === 'run' ? ['run', ...SMALL, '--out', out] : ['merge', shard(1), shard(2), '--out', out];
  const r = await cli(args, { env: { NODE_OPTIONS: `--import ${shortHook}` } });
  const kept = existsSync(out) && readFileSync(out, 'utf8') === oldText;
  const temps = readdirSync(work).filter((f) => f.startsWith(`.short-${cmd}.json.`));
  const journalKept = cmd === 'merge' || existsSync(`${out}.journal`);
  const message = r.stderr.trim().split('\n').pop() ?? '';
  // Then the same command on a disk with room: the file must come out whole.
  const again = await cli(args);
  const run = readRun(out);
  const whole = again.code === 0 && run !== null && run !== 'corrupt';
  const resumed = cmd === 'merge' || resumedFrom(again.stderr) > 0;
  const ok = r.code !== 0 && kept && temps.length === 0 && journalKept && whole && resumed;
  shortCases++;
  if (!ok) shortLost++;
  log(
    `  ${cmd} short write: exit ${r.code}, old file ${kept ? 'intact' : 'LOST'}, ${temps.length} temp files left` +
      `${cmd === 'run' ? `, journal ${journalKept ? 'kept' : 'GONE'}` : ''}; rerun ${whole ? 'wrote the file' : 'FAILED'}` +
      `${cmd === 'run' ? ` (resumed ${resumedFrom(again.stderr)})` : ''}. Message: ${message}`,
  );
  clean(out);
}
log(`Short writes (disk full): data lost ${shortLost}/${shortCases}`);

// 4. Browser reloads mid-run (the e2e check, repeated).
let browser = '';
const reps = Number(opt.browser);
if (reps > 0) {
  const r = spawnSync(
    'npx',
    ['playwright', 'test', 'tests/e2e/run.spec.ts', '-g', 'reload mid-run', `--repeat-each=${reps}`],
    { cwd: root, env: { ...process.env, E2E_PORT: opt.port }, encoding: 'utf8' },
  );
  const passed = Number(/(\d+) passed/.exec(r.stdout)?.[1] ?? 0);
  browser = `, browser reload resumes ${passed}/${reps}`;
  log(`Browser: reload mid-run resumed and completed ${passed}/${reps}`);
}

log(
  `\nSummary: resumes ${resumes}/${trials}, cells lost ${lost}, corrupted files ${corrupted}/${writes}, ` +
    `short writes lost ${shortLost}/${shortCases}${browser}`,
);
rmSync(work, { recursive: true, force: true });
process.exitCode =
  resumes === trials && lost === 0 && corrupted === 0 && incomplete === 0 && shortLost === 0 ? 0 : 1;
