import { readFileSync } from 'node:fs';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { decodeBase64Url, encodeBase64Url } from '../../../src/lib/share/base64url.ts';
import { inflateRawCapped } from '../../../src/lib/share/compress.ts';
import { NO_SPLIT_HASH, packV1 } from '../../../src/lib/share/linkV1.ts';
import {
  decodeRunLink,
  encodeRunLink,
  LinkError,
  MAX_LINK_PAYLOAD,
  MAX_UNPACKED_BYTES,
} from '../../../src/lib/share/permalink.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import { formatHash, planToFields } from '../../../src/lib/share/urlState.ts';

const load = (name: string): RunRecord =>
  parseRun(JSON.parse(readFileSync(`tests/fixtures/runs/${name}`, 'utf8')));
const classroom = load('classroom.json');
const ORIGIN = 'https://example.github.io/rac-bench/';

/** What a link keeps of a cell: everything but the split hash, creation time and sub-ms timing. */
function linkView(run: RunRecord) {
  return run.cells.map((c) => ({
    ...c,
    split: c.split && { ...c.split, indices_sha256: NO_SPLIT_HASH },
    timing: { ...c.timing, fit_ms: Math.round(c.timing.fit_ms), predict_ms: Math.round(c.timing.predict_ms) },
    created_at: run.created_at,
  }));
}

/** The whole permalink URL as the Share dialog writes it. */
function fullUrl(run: RunRecord, payload: string): string {
  return ORIGIN + formatHash({ page: 'results', fields: { ...planToFields(run.plan), r: payload } });
}

/** A payload of our own making: `1.` + base64url(deflate(json text)). */
function rawPayload(text: string, format = 1): string {
  return `${format}.${encodeBase64Url(deflateSync(new TextEncoder().encode(text)))}`;
}

function expectLinkError(payload: string, pattern: RegExp): void {
  let err: unknown;
  try {
    decodeRunLink(payload);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(LinkError);
  expect((err as Error).message).toMatch(pattern);
}

describe('base64url', () => {
  it('round-trips every length and matches RFC 4648 vectors', () => {
    const enc = (s: string) => encodeBase64Url(new TextEncoder().encode(s));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map(enc)).toEqual([
      '',
      'Zg',
      'Zm8',
      'Zm9v',
      'Zm9vYg',
      'Zm9vYmE',
      'Zm9vYmFy',
    ]);
    expect(encodeBase64Url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 255);
    expect([...decodeBase64Url(encodeBase64Url(bytes))]).toEqual([...bytes]);
  });
  it('refuses characters outside the alphabet and impossible lengths', () => {
    expect(() => decodeBase64Url('Zm9v+g')).toThrow(/"\+" at position 4/);
    expect(() => decodeBase64Url('Zm9vY')).toThrow(/cut short/);
  });
});

describe('permalink round trip', () => {
  it('carries the classroom run (864 cells) losslessly in scores, in a URL under 8 000 characters', async () => {
    expect(classroom.cells).toHaveLength(864);
    for (const prefer of ['platform', 'fflate'] as const) {
      const payload = await encodeRunLink(classroom, prefer);
      const back = decodeRunLink(payload);
      expect(back.cells).toEqual(linkView(classroom));
      expect(back.plan).toEqual(classroom.plan);
      expect(back.env).toEqual(classroom.env);
      const url = fullUrl(classroom, payload);
      console.log(
        `classroom permalink (${prefer}): payload ${payload.length} chars, URL ${url.length} chars`,
      );
      expect(url.length).toBeLessThan(8000);
    }
  });

  it('carries one full tabular panel (iris, feature, 5 labels: 7 algorithms × 6 t × 5 seeds)', async () => {
    const panel = load('iris-feature-5.json');
    expect(panel.cells).toHaveLength(7 * 6 * 5);
    expect(new Set(panel.cells.map((c) => c.algorithm.name)).size).toBe(7);
    const payload = await encodeRunLink(panel);
    expect(decodeRunLink(payload).cells).toEqual(linkView(panel));
    const url = fullUrl(panel, payload);
    console.log(`iris/feature/5 panel permalink: payload ${payload.length} chars, URL ${url.length} chars`);
    expect(url.length).toBeLessThan(8000);
  });

  it('rebuilds accuracy exactly from n_correct / n_test', async () => {
    const back = decodeRunLink(await encodeRunLink(classroom));
    back.cells.forEach((c, i) => expect(c.outcome.accuracy).toBe(classroom.cells[i].outcome.accuracy));
  });
});

describe('frozen format 1 link (must keep decoding in every later version)', () => {
  it('decodes the committed v1 string to the same 36 cells', () => {
    const frozen = readFileSync('tests/unit/share/fixtures/link-v1.txt', 'utf8').trim();
    expect(frozen.startsWith('1.')).toBe(true);
    const run = decodeRunLink(frozen);
    expect(run.id).toBe('frozen-v1');
    expect(run.created_at).toBe('2026-11-26T01:27:10.158Z');
    expect(run.cells).toHaveLength(36);
    expect(run.cells.reduce((a, c) => a + c.outcome.n_correct, 0)).toBe(2064);
    const c = run.cells[6];
    expect([
      c.dataset.id,
      c.setting,
      c.labels,
      c.algorithm.name,
      c.t_index,
      c.seed,
      c.outcome.n_correct,
      c.outcome.n_test,
    ]).toEqual(['iris', 'distribution', 5, 'xgb', 0, 1, 48, 60]);
    expect(c.outcome.accuracy).toBe(0.8);
    expect(run.cells[1].outcome.flattened_from_t0).toBe(true);
    expect(run.cells[18].timing.fit_ms).toBe(27);
    expect(run.cells[18].algorithm.name).toBe('lp');
    expect(run.cells[0].dataset.sha256).toBe(
      '9b79658cba271fcb89e5057cc9c419f9d5b396682cbba6476588f169beb63352',
    );
    expect(run.cells[0].split?.indices_sha256).toBe(NO_SPLIT_HASH);
  });
});

describe('hostile and broken links are refused with a clear message', () => {
  const small = { ...classroom, cells: classroom.cells.slice(0, 12) };

  it('truncated', async () => {
    const good = await encodeRunLink(small);
    expectLinkError(good.slice(0, Math.floor(good.length * 0.6)), /broken: .*(cut short|damaged)/);
    expectLinkError(good.slice(0, 40), /broken/);
  });
  it('garbage text', () => {
    expectLinkError('1.!!!!', /broken: its text is damaged \(character "!" at position 0/);
    expectLinkError('1.AAAAAAAAAAAAAAAA', /broken: its compressed data is damaged/);
    expectLinkError('hello', /does not start with a format number/);
    expectLinkError('', /holds no results/);
    expectLinkError(rawPayload('{"id": '), /not valid JSON/);
    expectLinkError(rawPayload('[1,2,3]'), /expected a packed run object/);
  });
  it('an unknown (newer) format', () => {
    expectLinkError(
      rawPayload('{}', 9),
      /format 9, which this version of RAC Bench cannot read \(it reads formats 1 and 2\)/,
    );
  });
  it('oversized text, before anything is decoded', () => {
    expectLinkError(
      `1.${'A'.repeat(MAX_LINK_PAYLOAD + 4)}`,
      new RegExp(`too long \\(${MAX_LINK_PAYLOAD + 6} characters`),
    );
  });
  it('a zip bomb: small compressed, huge unpacked', () => {
    const bomb = deflateSync(new Uint8Array(10 * 1024 * 1024), { level: 9 });
    const payload = `1.${encodeBase64Url(bomb)}`;
    expect(payload.length).toBeLessThan(MAX_LINK_PAYLOAD);
    expectLinkError(payload, new RegExp(`more than ${MAX_UNPACKED_BYTES} bytes`));
    expect(() => inflateRawCapped(bomb, 1000)).toThrow(/more than 1000 bytes/);
  });
  it('HTML in an algorithm name, an out-of-range table index, a wrong score', () => {
    const packed = packV1(parseRun(small));
    const evil = structuredClone(packed);
    (evil.tables.algorithm[0] as { name: string }).name = '<img src=x onerror=window.__pwned=1>';
    expectLinkError(rawPayload(JSON.stringify(evil)), /cells\[0\]\.algorithm\.name: expected an id/);
    const badIndex = structuredClone(packed);
    badIndex.cols[3][2] = 99;
    expectLinkError(
      rawPayload(JSON.stringify(badIndex)),
      /cols\.algorithm\[2\]: refers to entry 99 of table "algorithm"/,
    );
    const badScore = structuredClone(packed);
    badScore.cols[13][0] = 61; // n_correct > n_test
    expectLinkError(
      rawPayload(JSON.stringify(badScore)),
      /cells\[0\]\.outcome\.accuracy: expected a number between 0 and 1.*got 1\.016/,
    );
    const extra = { ...packed, script: 'x' };
    expectLinkError(rawPayload(JSON.stringify(extra)), /script: unknown field/);
  });
});

describe('share link', () => {
  it('carries the results when the URL fits, and only the plan and view when it does not', async () => {
    const { buildShareLink } = await import('../../../src/lib/share/shareLink.ts');
    const { defaultView } = await import('../../../src/lib/charts/viewState.ts');
    const view = { ...defaultView(), metricForm: 'code' as const };
    const fits = await buildShareLink(classroom, view, ORIGIN);
    expect(fits.tooLarge).toBeNull();
    expect(fits.url).toMatch(
      /^https:\/\/example\.github\.io\/rac-bench\/#\/results\?v=1&preset=custom&ds=iris,wine&.*&form=code&r=1\./,
    );
    // The same run with 40 seeds (fresh scores per seed, so nothing repeats): over 8 000 characters.
    const many = {
      ...classroom,
      plan: { ...classroom.plan, seeds: Array.from({ length: 40 }, (_, i) => i) },
      cells: Array.from({ length: 40 / 3 + 1 }, (_, k) =>
        classroom.cells.map((c) => {
          const nc = (c.outcome.n_correct * 7 + k * 13 + c.seed * 5) % (c.outcome.n_test + 1);
          return {
            ...c,
            seed: c.seed + 3 * k,
            outcome: {
              ...c.outcome,
              n_correct: nc,
              accuracy: c.outcome.status === 'ok' ? nc / c.outcome.n_test : null,
            },
          };
        }),
      )
        .flat()
        .filter((c) => c.seed < 40),
    };
    const big = await buildShareLink(parseRun(many), view, ORIGIN);
    expect(big.tooLarge).toBeGreaterThan(8000);
    expect(big.url).not.toContain('&r=');
    expect(big.url).toContain('seeds=0-39');
    expect(big.url).toContain('form=code');
  });
});
