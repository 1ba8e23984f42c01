/**
 * Share, export and Compare of image/text runs (`rsb-run/3`; PROTOCOL-IMAGE-TEXT.md §8, §11):
 * link format 2 reopens a run with the same cells (less the split hash and creation time, as format
 * 1) and so the same curves and metrics; a hostile or damaged link gets one plain sentence; the
 * tabular-only decoder says what the link holds; Compare refuses a tabular and an image run side by
 * side, and two tiers; the exports carry the cells and the metrics (code form checked by hand: AUC
 * = mean of the six accuracies, WA = their minimum; Supervised flattened to a₀, §8).
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { encodeBase64Url } from '../../../src/lib/share/base64url.ts';
import { compareRuns } from '../../../src/lib/share/compare.ts';
import { NO_SPLIT_HASH } from '../../../src/lib/share/linkV1.ts';
import { packV2 } from '../../../src/lib/share/linkV2.ts';
import {
  MODAL_CSV_COLUMNS,
  modalMetricRows,
  modalMetricsToCsv,
  modalMetricsToJson,
  modalRunToCsv,
} from '../../../src/lib/share/modalExport.ts';
import {
  decodeAnyRunLink,
  decodeRunLink,
  encodeModalRunLink,
  LinkError,
} from '../../../src/lib/share/permalink.ts';
import { parseAnyRunFile } from '../../../src/lib/share/runFile.ts';
import { buildModalShareLink } from '../../../src/lib/share/shareLink.ts';
import { readHash, viewFromFields } from '../../../src/lib/share/urlState.ts';
import { defaultView } from '../../../src/lib/charts/viewState.ts';
import { parseRun } from '../../../src/lib/suite/schema.ts';
import type { ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { cifarFeatureRun } from '../../helpers/modalRuns.ts';

const ORIGIN = 'https://example.github.io/rac-bench/';
const committed = parseAnyRunFile(readFileSync('tests/fixtures/runs/image-features-2.json', 'utf8'))
  .run as ModalRunRecord;
const tabular = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')));

/** What a format-2 link keeps of a run's cells. */
const linkView = (run: ModalRunRecord) =>
  run.cells.map((c) => ({
    ...c,
    split: { ...c.split, indices_sha256: NO_SPLIT_HASH },
    created_at: run.finished_at ?? run.created_at,
  }));

/** A payload of format 2 holding this JSON (for links a stranger could write). */
const payloadOf = (json: unknown) =>
  `2.${encodeBase64Url(deflateSync(new TextEncoder().encode(JSON.stringify(json))))}`;

describe('image/text links (format 2)', () => {
  it('reopen the run: the same cells, curves and metrics', async () => {
    for (const run of [
      cifarFeatureRun({ methods: ['supervised', 'pseudolabel', 'fixmatch'], seeds: [0, 1, 2] }),
      committed,
    ]) {
      const payload = await encodeModalRunLink(run);
      expect(payload).toMatch(/^2\.[A-Za-z0-9_-]+$/);
      const back = decodeAnyRunLink(payload);
      expect(back.kind).toBe('modal');
      const got = back.run as ModalRunRecord;
      expect(got.cells).toEqual(linkView(run));
      expect({ ...got, cells: [] }).toEqual({ ...run, cells: [] });
      expect(modalMetricRows(got, 'integral')).toEqual(modalMetricRows(run, 'integral'));
    }
  });

  it('a 54-cell panel run fits in a share URL with its view', async () => {
    const run = cifarFeatureRun({ methods: ['supervised', 'pseudolabel', 'fixmatch'], seeds: [0, 1, 2] });
    const view = { ...defaultView(), metricForm: 'code' as const, hidden: ['pseudolabel'] };
    const link = await buildModalShareLink(run, view, ORIGIN);
    expect(link.tooLarge).toBeNull();
    const reading = readHash(link.url.slice(ORIGIN.length));
    expect(reading.page).toBe('results');
    expect(reading.notices).toEqual([]);
    expect(viewFromFields(reading.fields)).toEqual(view);
    expect((decodeAnyRunLink(reading.fields.r!).run as ModalRunRecord).cells).toEqual(linkView(run));
    // Too long for the cap: the view alone, and the length the full link would have had.
    const small = await buildModalShareLink(run, view, ORIGIN, 300);
    expect(small.tooLarge).toBeGreaterThan(300);
    expect(readHash(small.url.slice(ORIGIN.length)).fields.r).toBeUndefined();
  });

  it('hostile or damaged links get one plain sentence', async () => {
    const run = cifarFeatureRun();
    const good = await encodeModalRunLink(run);
    const broken = (payload: string) => {
      try {
        decodeAnyRunLink(payload);
      } catch (e) {
        expect(e).toBeInstanceOf(LinkError);
        return (e as Error).message;
      }
      throw new Error(`decoded: ${payload.slice(0, 20)}`);
    };
    expect(broken(`${good.slice(0, 40)}`)).toMatch(/^This results link is broken: /);
    expect(broken('2.***')).toMatch(/broken: its text is damaged/);
    expect(broken(payloadOf({ f: 2, run: {}, cells: 'x' }))).toMatch(
      /not an image\/text run of link format 2/,
    );
    const packed = packV2(run) as { cells: Record<string, unknown>[] };
    const bad = structuredClone(packed);
    (bad.cells[0].outcome as Record<string, unknown>).n_test = -5;
    expect(broken(payloadOf(bad))).toMatch(/a value is invalid at cells\[0\]\.outcome/);
    const evil = structuredClone(packed) as unknown as { run: { plan: { datasets: string[] } } };
    evil.run.plan.datasets = ['cifar10', 'mnist'];
    expect(broken(payloadOf(evil))).toMatch(
      /broken: the plan names dataset "mnist", which RAC Bench does not have/,
    );
    expect(broken(`2.${'A'.repeat(20_000)}`)).toMatch(/too long/);
    // The tabular-only reader names what the link holds instead of failing on it.
    expect(() => decodeRunLink(good)).toThrow(/holds an image\/text run/);
    expect(broken('7.abc')).toMatch(
      /format 7, which this version .* cannot read \(it reads formats 1 and 2\)/,
    );
  });
});

describe('Compare with image/text runs', () => {
  const opts = { form: 'code' as const, isBaseline: isBaselineAlgorithm };
  it('gives two image runs their metrics and Δ', () => {
    const a = cifarFeatureRun({ id: 'a' });
    const b = cifarFeatureRun({
      id: 'b',
      correct: (m, _s, t) => 8000 + 300 * m - 150 * t - (m > 0 ? 500 : 0),
    });
    const cmp = compareRuns(
      [
        { name: 'A', run: a },
        { name: 'B', run: b },
      ],
      opts,
    );
    expect(cmp.refused).toEqual([]);
    const fix = cmp.rows.find((r) => r.algorithm === 'fixmatch')!;
    expect(fix.dataset).toBe('cifar10');
    // Code AUC: the mean of the six accuracies; B's FixMatch lost 500 of 10 000 at every t… and A's t² term.
    const accA = [0, 1, 2, 3, 4, 5].map((t) => (8300 - 150 * t + 11 * t * t) / 10_000);
    const accB = [0, 1, 2, 3, 4, 5].map((t) => (7800 - 150 * t) / 10_000);
    const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
    expect(fix.values.auc[0]).toBeCloseTo(mean(accA), 12);
    expect(fix.values.auc[1]).toBeCloseTo(mean(accB), 12);
    expect(fix.delta.auc[1]).toBeCloseTo(mean(accB) - mean(accA), 12);
    expect(fix.values.wa[1]).toBeCloseTo(Math.min(...accB), 12);
    expect(cmp.curves.map((c) => c.algorithm).sort()).toEqual([
      'fixmatch@A',
      'fixmatch@B',
      'supervised@A',
      'supervised@B',
    ]);
  });

  it('refuses a tabular run beside an image run, and another tier', () => {
    const img = cifarFeatureRun({ id: 'img' });
    const mixed = compareRuns(
      [
        { name: 'A', run: img },
        { name: 'B', run: tabular },
      ],
      opts,
    );
    expect(mixed.included.map((x) => x.name)).toEqual(['A']);
    expect(mixed.refused).toEqual([
      {
        name: 'B',
        reason:
          'Run B is a tabular run and run A is an image/text run: their panels, protocols and metrics differ, so they are not compared. Compare image/text runs with image/text runs, and tabular runs with tabular runs.',
      },
    ]);
    const tiers = compareRuns(
      [
        { name: 'A', run: img },
        { name: 'B', run: cifarFeatureRun({ id: 'c', tier: 'classroom' }) },
      ],
      opts,
    );
    expect(tiers.refused[0].reason).toMatch(
      /^Run B ran the classroom tier and run A the features tier; tiers are different protocols/,
    );
  });
});

describe('image/text exports', () => {
  const run = cifarFeatureRun({ methods: ['supervised', 'fixmatch'], seeds: [0] });
  it('the cells as CSV, one row per record', () => {
    const lines = modalRunToCsv(run).split('\r\n');
    expect(lines[0]).toBe(MODAL_CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + run.cells.length + 1); // trailing CRLF
    const row = lines[1].split(',');
    const col = (name: (typeof MODAL_CSV_COLUMNS)[number]) => row[MODAL_CSV_COLUMNS.indexOf(name)];
    expect(col('dataset')).toBe('cifar10');
    expect(col('algorithm')).toBe('supervised');
    expect(col('tier')).toBe('features');
    expect(col('feature')).toBe('r50-gap-2048');
    expect(Number(col('accuracy'))).toBe(run.cells[0].outcome.accuracy);
  });

  it('the metrics as CSV and JSON: code AUC and WA by hand, Supervised flat at a₀', () => {
    const json = JSON.parse(modalMetricsToJson(run, 'code'));
    expect(json.run).toBe(run.id);
    const sup = json.rows.find((r: { algorithm: string }) => r.algorithm === 'supervised');
    const fix = json.rows.find((r: { algorithm: string }) => r.algorithm === 'fixmatch');
    expect(sup.baseline).toBe(true);
    expect(sup.values.auc).toBeCloseTo(0.8, 12);
    expect(sup.values.wa).toBeCloseTo(0.8, 12);
    expect(sup.values.rcc).toBeNull(); // nan: a flat curve has no correlation
    const acc = [0, 1, 2, 3, 4, 5].map((t) => (8300 - 150 * t + 11 * t * t) / 10_000);
    expect(fix.values.auc).toBeCloseTo(acc.reduce((a, b) => a + b, 0) / 6, 12);
    expect(fix.values.wa).toBeCloseTo(Math.min(...acc), 12);
    const csv = modalMetricsToCsv(run, 'code').split('\r\n');
    expect(csv[0]).toBe('panel,setting,labels,algorithm,baseline,form,auc,ea,wa,evm,vs,rcc');
    expect(csv[2].split(',').slice(0, 6)).toEqual(['cifar10', 'feature', '200', 'fixmatch', 'false', 'code']);
    expect(Number(csv[2].split(',')[6])).toBeCloseTo(fix.values.auc, 12);
  });
});
