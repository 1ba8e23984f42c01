/**
 * `rac-bench published` uses the page's rule and words (issue 21, item 6): the same verdict lines
 * as the badge, the seeds on both sides, and a warning for a run in readme mode or with overrides.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_TEXT } from '../../../src/lib/published/agreement.ts';
import { runCli } from '../helpers/cli.ts';

describe('rac-bench published', () => {
  it('prints the badge words per panel, and warns about readme mode and overrides', async () => {
    const ok = await runCli(['published', 'tests/fixtures/runs/paper-wine-5.json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain(RULE_TEXT);
    expect(ok.stdout).toContain(
      "| wine · feature · 5 labels | ✓ Reproduced | 12/12 points agree · no one-sided lean · 5 seeds vs the original's 5 · 12 exactly equal · mean Δ ±0.00 pp |",
    );

    const run = JSON.parse(readFileSync('tests/fixtures/runs/paper-wine-5.json', 'utf8'));
    run.plan.mode = 'readme';
    for (const c of run.cells) {
      c.protocol.mode = 'readme';
      c.protocol.overrides = { quirks: 'fixed' };
    }
    const file = join(mkdtempSync(join(tmpdir(), 'rac-pub-')), 'readme.json');
    writeFileSync(file, JSON.stringify(run));
    const r = await runCli(['published', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Warning: this run is in readme mode, not the rsb code path behind the published numbers; every verdict below carries this caveat.',
    );
    expect(r.stderr).toContain('Warning: this run has overrides (quirks), not the published protocol;');
    expect(r.stdout).toMatch(
      /\| wine · feature · 5 labels \| ✓ Reproduced \| .* · caveat: this run is in readme mode, .* · caveat: this run has overrides \(quirks\), not the published protocol \|/,
    );

    const image = await runCli(['published', 'tests/fixtures/runs/image-features-2.json']);
    expect(image.code, image.stderr).toBe(0);
    expect(image.stdout).toContain(
      "| image-clef:i->p · distribution · 100 labels | Different protocol | reference only, no reproduction verdict: this run's tier is features, the published curves are finetune (ResNet-50 / RoBERTa-base) |",
    );
  }, 60_000);
});
