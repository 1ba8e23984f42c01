/**
 * Issue 21, item 15: `rac-bench run` speaks words. A fit is "wine · distribution · 5 labels · SSGMM
 * · t 1.0 · seed 0: 0.933", not its key; by default a progress bar with the ETA, one line per fit
 * only with --verbose; failed fits are always said.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutedCell } from '../../../src/lib/suite/executor.ts';
import type { ProgressSnapshot } from '../../../src/lib/suite/scheduler.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { fitLine, fitWords, progressBar, ProgressReporter } from '../../../src/cli/progress.ts';
import { runCli as cli } from '../helpers/cli.ts';

const snap = (done: number, total = 10, eta: number | null = 65): ProgressSnapshot => ({
  done,
  total,
  failed: 0,
  fitsDone: done,
  fitsTotal: total,
  inFlight: 1,
  cellsPerMinute: null,
  etaSeconds: eta,
  elapsedSeconds: 1,
  costTotal: total,
  costDone: done,
});
const ok = (key: string, accuracy: number): ExecutedCell => ({
  key,
  status: 'ok',
  result: { outcome: { status: 'ok', accuracy } } as unknown as CellResult,
  error: null,
  attempts: 1,
});

describe('the CLI progress in words', () => {
  it('names a fit by its dataset, setting, labels, algorithm, t and seed', () => {
    expect(fitWords('wine|distribution|5|ssgmm|5|0')).toBe(
      'wine · distribution · 5 labels · Semi-supervised GMM · t 1.0 · seed 0',
    );
    expect(fitLine(ok('wine|distribution|5|ssgmm|5|0', 0.9333))).toBe(
      'wine · distribution · 5 labels · Semi-supervised GMM · t 1.0 · seed 0: 0.933',
    );
    expect(
      fitLine({
        key: 'iris|label|5|lp|2|1',
        status: 'failed',
        result: null,
        error: 'Crashed twice',
        attempts: 2,
      }),
    ).toBe('iris · label · 5 labels · Label Propagation · t 0.4 · seed 1: failed (Crashed twice)');
    expect(progressBar(snap(5))).toBe('[##########··········] 50.0 % · 5/10 fits · ETA 1 min 05 s');
  });

  it('draws a bar by default (a line per 5 % when piped) and a line per fit only when verbose', () => {
    let i = 0;
    const text: string[] = [];
    const piped = new ProgressReporter({ write: (t: string) => text.push(t) }, false, () => snap(i));
    for (i = 1; i <= 10; i++) piped.stored([ok(`iris|label|5|lp|${i % 6}|0`, 0.5)]);
    piped.finish();
    expect(text.every((t) => t.startsWith('[') && t.includes('ETA'))).toBe(true);
    expect(text).toHaveLength(10);
    expect(text.join('')).not.toMatch(/iris ·/);

    const lines: string[] = [];
    const verbose = new ProgressReporter({ write: (t: string) => lines.push(t) }, true, () => snap(1));
    verbose.stored([ok('iris|label|5|lp|0|0', 0.5)]);
    verbose.finish();
    expect(lines).toEqual([
      'iris · label · 5 labels · Label Propagation · t 0.0 · seed 0: 0.500 · 1/10 cells · ETA 1 min 05 s\n',
    ]);

    const tty: string[] = [];
    const term = new ProgressReporter({ write: (t: string) => tty.push(t), isTTY: true }, false, () =>
      snap(3),
    );
    term.stored([ok('iris|label|5|lp|0|0', 0.5)]);
    term.stored([{ key: 'iris|label|5|lp|1|0', status: 'failed', result: null, error: 'boom', attempts: 2 }]);
    term.finish();
    expect(tty[0]).toBe('\r\x1b[K[######··············] 30.0 % · 3/10 fits · ETA 1 min 05 s');
    expect(tty).toContain('iris · label · 5 labels · Label Propagation · t 0.2 · seed 0: failed (boom)\n');
    expect(tty[tty.length - 1]).toBe('\n');
  });

  it('rac-bench run prints the bar, and the fits in words with --verbose', async () => {
    const dir = (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/rac-progress-`);
    const plan = ['run', '--dataset', 'iris', '--setting', 'label', '--labels', '5', '--algorithms', 'lp'];
    const plain = await cli([...plan, '--seeds', '0', '--t', '0,0.2', '--out', `${dir}/a.json`]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/^\[#+·*\] 100\.0 % · 2\/2 fits · ETA 0 s$/m);
    expect(plain.stderr).not.toMatch(/iris\|label/);
    const verbose = await cli([
      ...plan,
      '--seeds',
      '0',
      '--t',
      '0,0.2',
      '--verbose',
      '--out',
      `${dir}/b.json`,
    ]);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toMatch(
      /^iris · label · 5 labels · Label Propagation · t 0\.2 · seed 0: \d\.\d{3} · \d\/2 cells · ETA /m,
    );
  }, 120_000);
});
