/**
 * Curve records (PROTOCOL.md §1, §8, §10): cell results grouped into curves, one per
 * (dataset, setting, labels, algorithm), with the per-t seed mean, population std and seed count,
 * and both metric forms. Supervised baselines are flattened to their t = 0 value (§8.2).
 * Results that differ in protocol (mode, version, quirks, options, overrides) or in dataset
 * content are never pooled: they form separate curves. Pure: no clock, no DOM.
 */
import { curveMetrics, type CurveMetrics, type PT } from '../metrics/index.ts';
import { T_GRID, type Setting } from '../types.ts';
import type { CellResult } from './schema.ts';

/** The protocol fields that keep curves apart: a tabular record's, or an image/text record's with its tier. */
export interface CurveProtocol {
  mode: CellResult['protocol']['mode'];
  version: string;
  quirks: CellResult['protocol']['quirks'];
  options: object;
  overrides: object;
}

/**
 * What grouping and scoring read from a cell record: a tabular `CellResult` is one, and an image or
 * text record (`rsb-cell/3`) becomes one through modalCurves.ts, so both modalities draw through
 * the same curves, panels and metrics.
 */
export interface CurveCell {
  dataset: { id: string; sha256: string };
  setting: Setting;
  labels: number;
  t_index: number;
  seed: number;
  algorithm: { name: string; family: CellResult['algorithm']['family'] };
  protocol: CurveProtocol;
  outcome: { status: CellResult['outcome']['status']; accuracy: number | null };
}

const POINTS = T_GRID.length;

export interface CurveStats {
  /** Per t: mean accuracy over the seeds (NaN where there is none). */
  mean: number[];
  /** Per t: population std (÷ n, PROTOCOL.md §6) over the same seeds (NaN where there is none). */
  std: number[];
  /** Per t: number of seeds averaged. */
  nSeeds: number[];
}

/**
 * Mean, population std and count per t.
 * @param accByT six lists (one per t of the grid) of per-seed accuracies in [0, 1]
 */
export function curveStats(accByT: readonly (readonly number[])[]): CurveStats {
  const isList = Array.isArray(accByT as unknown);
  if (!isList || accByT.length !== POINTS) {
    throw new RangeError(
      `curveStats: expected ${POINTS} lists of accuracies (one per t), got ${isList ? accByT.length : typeof accByT}.`,
    );
  }
  const mean: number[] = [];
  const std: number[] = [];
  const nSeeds: number[] = [];
  accByT.forEach((xs, i) => {
    xs.forEach((x, j) => {
      if (typeof x !== 'number' || !(x >= 0 && x <= 1)) {
        throw new RangeError(
          `curveStats: accuracy ${j} at t=${T_GRID[i]} is ${String(x)}; expected a number in [0, 1].`,
        );
      }
    });
    const n = xs.length;
    const m = n ? xs.reduce((s, x) => s + x, 0) / n : Number.NaN;
    mean.push(m);
    std.push(n ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / n) : Number.NaN);
    nSeeds.push(n);
  });
  return { mean, std, nSeeds };
}

export interface CurveRecord extends CurveStats {
  dataset: string;
  setting: Setting;
  labels: number;
  algorithm: string;
  family: CellResult['algorithm']['family'];
  /** The protocol the cells ran under (curves never pool across protocols). */
  protocol: CurveProtocol;
  datasetSha256: string;
  /** A supervised baseline: scored flattened to t = 0; mean/std/nSeeds repeat the t = 0 values. */
  baseline: boolean;
  /** Seeds with at least one scored cell, ascending. */
  seeds: number[];
  /** Cells of this curve that failed, were skipped or are degenerate (no score). */
  nNotOk: number;
  /** Repeated (t, seed) cells; the first one was used. */
  nDuplicates: number;
  /** Both metric forms; null until every needed t has a scored seed (t = 0 alone for baselines). */
  metrics: CurveMetrics | null;
}

export interface PanelCurvesOptions {
  /** Supervised baselines (e.g. 'xgb', 'ftt'): flattened to a₀ before scoring. */
  isBaseline: (algorithm: string) => boolean;
  /** P_T of the integral EA; default uniform. */
  pt?: PT;
}

function protocolOf(c: CurveCell): CurveRecord['protocol'] {
  const { mode, version, quirks, options, overrides } = c.protocol;
  return { mode, version, quirks, options, overrides };
}

/** Deterministic text for a JSON value (sorted keys), to compare protocols. */
function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x !== null && typeof x === 'object') {
    const entries = Object.keys(x as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(x);
}

interface Group {
  first: CurveCell;
  acc: number[][];
  seen: Set<string>;
  seeds: Set<number>;
  nNotOk: number;
  nDuplicates: number;
}

/**
 * Curves of a set of cell results, in order of first appearance. Each curve carries its stats
 * and, once complete, both metric forms (baselines flattened per PROTOCOL.md §8.2).
 */
/**
 * The curve a cell belongs to, as text. Cached per cell: canonical() of the protocol is the
 * costly part of grouping, and a record is never edited once made (results are append-only).
 */
const curveKeys = new WeakMap<CurveCell, string>();
function curveKeyOf(c: CurveCell): string {
  let key = curveKeys.get(c);
  if (key === undefined) {
    key = canonical([c.dataset.id, c.setting, c.labels, c.algorithm.name, c.dataset.sha256, protocolOf(c)]);
    curveKeys.set(c, key);
  }
  return key;
}

export function panelCurves(
  cells: readonly CurveCell[],
  { isBaseline, pt }: PanelCurvesOptions,
): CurveRecord[] {
  const groups = new Map<string, Group>();
  for (const c of cells) {
    const key = curveKeyOf(c);
    let g = groups.get(key);
    if (!g) {
      g = {
        first: c,
        acc: T_GRID.map(() => []),
        seen: new Set(),
        seeds: new Set(),
        nNotOk: 0,
        nDuplicates: 0,
      };
      groups.set(key, g);
    }
    const cellId = `${c.t_index}|${c.seed}`;
    if (g.seen.has(cellId)) {
      g.nDuplicates++;
      continue;
    }
    g.seen.add(cellId);
    if (c.outcome.status === 'ok' && c.outcome.accuracy !== null) {
      g.acc[c.t_index].push(c.outcome.accuracy);
      g.seeds.add(c.seed);
    } else {
      g.nNotOk++;
    }
  }

  const curves: CurveRecord[] = [];
  for (const g of groups.values()) {
    const c = g.first;
    const baseline = isBaseline(c.algorithm.name);
    let stats = curveStats(g.acc);
    if (baseline) {
      // Fit once at t = 0 and reported at every t (§7.1): the curve is the t = 0 value throughout.
      stats = {
        mean: stats.mean.map(() => stats.mean[0]),
        std: stats.std.map(() => stats.std[0]),
        nSeeds: stats.nSeeds.map(() => stats.nSeeds[0]),
      };
    }
    const complete = stats.nSeeds.every((n) => n > 0);
    curves.push({
      dataset: c.dataset.id,
      setting: c.setting,
      labels: c.labels,
      algorithm: c.algorithm.name,
      family: c.algorithm.family,
      protocol: protocolOf(c),
      datasetSha256: c.dataset.sha256,
      baseline,
      ...stats,
      seeds: [...g.seeds].sort((a, b) => a - b),
      nNotOk: g.nNotOk,
      nDuplicates: g.nDuplicates,
      metrics: complete ? curveMetrics(stats.mean, { baseline, pt }) : null,
    });
  }
  return curves;
}

export interface Panel {
  dataset: string;
  setting: Setting;
  labels: number;
  curves: CurveRecord[];
}

/** Curves grouped into panels (dataset, setting, labels), in order of first appearance. */
export function groupPanels(curves: readonly CurveRecord[]): Panel[] {
  const panels = new Map<string, Panel>();
  for (const c of curves) {
    const key = JSON.stringify([c.dataset, c.setting, c.labels]);
    let p = panels.get(key);
    if (!p) {
      p = { dataset: c.dataset, setting: c.setting, labels: c.labels, curves: [] };
      panels.set(key, p);
    }
    p.curves.push(c);
  }
  return [...panels.values()];
}

export interface CurvesAndPanels {
  /** As panelCurves(cells). */
  curves: CurveRecord[];
  /** As groupPanels(curves). */
  panels: Panel[];
}

interface PanelEntry {
  cells: CurveCell[];
  /** Index (among all cells) of each curve's first cell, in order of first appearance. */
  firstIndex: Map<string, number>;
  /** null while new cells wait to be scored. */
  panel: Panel | null;
}

const panelKeyOf = (c: CurveCell) => JSON.stringify([c.dataset.id, c.setting, c.labels]);

/**
 * panelCurves + groupPanels for a list of cells that only grows (live results): each update
 * scores only the panels that got new cells, and returns the very same Panel (and curve)
 * objects for the others, so a chart can skip them by identity. A list that is not an
 * extension of the previous one is scored from scratch. Results equal the full computation.
 */
export class IncrementalCurves {
  readonly options: Readonly<PanelCurvesOptions>;
  #seen: CurveCell[] = [];
  #entries = new Map<string, PanelEntry>();
  #result: CurvesAndPanels = { curves: [], panels: [] };

  constructor(options: PanelCurvesOptions) {
    this.options = { ...options };
  }

  update(cells: readonly CurveCell[]): CurvesAndPanels {
    if (!this.#extendsSeen(cells)) {
      this.#seen = [];
      this.#entries.clear();
      this.#result = { curves: [], panels: [] };
    }
    if (cells.length === this.#seen.length) return this.#result;
    for (let i = this.#seen.length; i < cells.length; i++) {
      const c = cells[i];
      this.#seen.push(c);
      const pk = panelKeyOf(c);
      let e = this.#entries.get(pk);
      if (!e) {
        e = { cells: [], firstIndex: new Map(), panel: null };
        this.#entries.set(pk, e);
      }
      e.cells.push(c);
      e.panel = null;
      const ck = curveKeyOf(c);
      if (!e.firstIndex.has(ck)) e.firstIndex.set(ck, i);
    }
    const panels: Panel[] = [];
    const ordered: { at: number; curve: CurveRecord }[] = [];
    for (const e of this.#entries.values()) {
      if (!e.panel) {
        const curves = panelCurves(e.cells, this.options);
        const c0 = e.cells[0];
        e.panel = { dataset: c0.dataset.id, setting: c0.setting, labels: c0.labels, curves };
      }
      panels.push(e.panel);
      // panelCurves orders a panel's curves by first appearance, as firstIndex does.
      const at = [...e.firstIndex.values()];
      e.panel.curves.forEach((curve, j) => ordered.push({ at: at[j], curve }));
    }
    ordered.sort((a, b) => a.at - b.at);
    this.#result = { curves: ordered.map((o) => o.curve), panels };
    return this.#result;
  }

  /** Whether cells starts with every cell seen so far (pointer checks only). */
  #extendsSeen(cells: readonly CurveCell[]): boolean {
    const seen = this.#seen;
    if (cells.length < seen.length) return false;
    for (let i = 0; i < seen.length; i++) if (cells[i] !== seen[i]) return false;
    return true;
  }
}
