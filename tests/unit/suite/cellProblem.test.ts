/**
 * Schema-valid but impossible run files (issue 21, item 7): cells outside their plan, a built-in
 * dataset with another shape, a dataset the registry does not have, and one algorithm under two
 * `protocol.overrides` in one panel (a raw each_key_duplicate on the Results page). Each is
 * refused where a run enters (file import, links, merge, `published`, the Results page), in
 * one sentence.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeRunLink, encodeRunLink } from '../../../src/lib/share/permalink.ts';
import { parseAnyRunFile, parseRunFile } from '../../../src/lib/share/runFile.ts';
import { cellProblem, mergeRuns, viewProblems } from '../../../src/lib/suite/merge.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import { runCli } from '../helpers/cli.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures edited in place

const WINE = readFileSync('tests/fixtures/runs/paper-wine-5.json', 'utf8');
const IMAGE = readFileSync('tests/fixtures/runs/image-features-2.json', 'utf8');
const wine = (): Json => JSON.parse(WINE);
const image = (): Json => JSON.parse(IMAGE);
const text = (x: Json) => JSON.stringify(x);

/** The file's one-sentence refusal. */
function refusal(x: Json): string {
  try {
    parseAnyRunFile(text(x), '"bad.json"');
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
}

describe('impossible runs are refused where they enter', () => {
  it('a cell outside its plan (the valid fixtures pass)', () => {
    expect(parseAnyRunFile(WINE).kind).toBe('tabular');
    expect(parseAnyRunFile(IMAGE).kind).toBe('modal');
    const x = wine();
    x.cells[3].seed = 9;
    expect(refusal(x)).toBe(
      '"bad.json" is not a run RAC Bench could have made: cells[3] (wine, feature, labels 5, ssgmm, t=0.6, seed 9) ' +
        "lies outside the run's plan: seed 9 is not among its seeds (0, 1, 2, 3, 4).",
    );
    const y = wine();
    y.cells[0].algorithm.name = 'lp';
    y.cells[0].algorithm.family = 'statistical';
    expect(refusal(y)).toMatch(
      /cells\[0\] .* lies outside the run's plan: algorithm lp is not among its algorithms \(ssgmm, tritraining\)\.$/,
    );
  });

  it('iris with N 151', () => {
    const x = wine();
    x.plan.datasets = ['iris'];
    for (const c of x.cells) Object.assign(c.dataset, { id: 'iris', N: 151, d: 4, k: 3 });
    expect(refusal(x)).toMatch(
      /cells\[0\] \(iris, .*\) records iris with N 151, d 4, k 3, but iris has N 150, d 4, k 3\.$/,
    );
  });

  it('dataset mnist, in the plan or only in a cell', () => {
    const x = wine();
    x.plan.datasets = ['mnist'];
    for (const c of x.cells) c.dataset.id = 'mnist';
    expect(refusal(x)).toBe(
      '"bad.json" is not a run RAC Bench could have made: the plan names dataset "mnist", which RAC Bench does not have.',
    );
    const y = wine();
    y.cells[5].dataset.id = 'mnist';
    expect(refusal(y)).toMatch(
      /cells\[5\] \(mnist, .*\) lies outside the run's plan: dataset mnist is not among its datasets \(wine\)\.$/,
    );
  });

  it('two protocol.overrides for one algorithm in one panel', () => {
    const x = wine();
    x.cells[1].protocol.overrides = { 'ssgmm.maxIter': 5 };
    expect(refusal(x)).toBe(
      '"bad.json" is not a run RAC Bench could have made: ssgmm on wine · feature · 5 labels has protocol.overrides {} in ' +
        'cells[0] and {"ssgmm.maxIter":5} in cells[1]; a run holds one protocol per algorithm and panel, so its curve cannot be drawn.',
    );
  });

  it('image/text: an unknown panel, a pair the dataset does not have, a t outside the plan', () => {
    const a = image();
    a.plan.datasets = ['cifar10', 'mnist'];
    a.cells[1].dataset.id = 'mnist';
    expect(refusal(a)).toMatch(/: the plan names dataset "mnist", which RAC Bench does not have\.$/);
    const b = image();
    b.cells[1].dataset.pair = { source: 'i', target: 'x' };
    expect(refusal(b)).toMatch(/the pair i->x is not among its pairs \(i->p\)\.$/);
    const c = image();
    delete c.plan.pairs;
    c.cells[1].dataset.pair = { source: 'i', target: 'x' };
    expect(refusal(c)).toMatch(/runs Image-CLEF on the pair i->x, which it does not have/);
    const d = image();
    d.cells[0].t_index = 5;
    d.cells[0].t = 1;
    expect(refusal(d)).toMatch(
      /cells\[0\] \(cifar10, feature, labels 200, fixmatch, t=1, seed 0\) lies outside the run's plan: t = 1 is not among its t \(0, 0.2\)\.$/,
    );
  });

  it('merge, links and the Results page refuse them too', async () => {
    const x = wine();
    x.cells[1].protocol.overrides = { 'ssgmm.maxIter': 5 };
    const run = parseRun(x); // schema-valid
    expect(cellProblem(run)).toMatch(/has protocol\.overrides \{\} in cells\[0\]/);
    expect(() => mergeRuns([run], ['a.json'])).toThrow(
      /^a\.json cannot be merged: ssgmm on wine · feature · 5 labels has/,
    );
    expect(viewProblems(run).at(-1)).toMatch(/^Ssgmm on wine · feature · 5 labels has protocol\.overrides/);
    expect(() => parseRunFile(text(x))).toThrow(/is not a run RAC Bench could have made/);
    const link = await encodeRunLink(run as RunRecord, 'fflate');
    expect(() => decodeRunLink(link)).toThrow(
      /^This results link is broken: ssgmm on wine · feature · 5 labels has protocol\.overrides .* so its curve cannot be drawn\. Ask for the link again/,
    );
  });

  it('rac-bench published and merge say what is wrong in one sentence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-cells-'));
    const x = wine();
    x.cells[3].seed = 9;
    writeFileSync(join(dir, 'bad.json'), text(x));
    const pub = await runCli(['published', join(dir, 'bad.json')]);
    expect(pub.code).not.toBe(0);
    expect(pub.stderr).toMatch(
      /bad\.json is not a run RAC Bench could have made: cells\[3\] .* seed 9 is not among its seeds/,
    );
    const merge = await runCli(['merge', join(dir, 'bad.json'), '--out', join(dir, 'm.json')]);
    expect(merge.code).not.toBe(0);
    expect(merge.stderr).toMatch(/bad\.json cannot be merged: cells\[3\] .* lies outside the run's plan/);
  }, 60_000);
});
