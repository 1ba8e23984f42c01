import { describe, expect, it } from 'vitest';
import { trainingChart } from '../../../src/lib/charts/trainingChart.ts';
import { TrainingLog } from '../../../src/lib/charts/trainingLog.ts';
import { shimDocument } from './fixtures.ts';

function fixMatchLike(steps: number, every = 1): TrainingLog {
  const log = new TrainingLog(64);
  for (let s = 0; s <= steps; s += every) {
    log.push(
      {
        step: s,
        total: steps,
        losses: { sup: 2 * Math.exp(-s / 300), unsup: 0.5 * (1 - Math.exp(-s / 500)) },
        scalars: { mask: Math.min(1, s / steps) },
      },
      s * 4,
    );
  }
  return log;
}

describe('TrainingLog', () => {
  it('keeps at most `capacity` evenly spaced points plus the latest, for any fit length', () => {
    const log = fixMatchLike(10_000);
    const pts = log.points;
    expect(pts.length).toBeLessThanOrEqual(65);
    expect(pts[0].step).toBe(0);
    expect(pts[pts.length - 1].step).toBe(10_000);
    const gaps = new Set(
      pts
        .slice(0, -1)
        .map((p, i) => pts[i + 1].step - p.step)
        .slice(0, -1),
    );
    expect(gaps.size).toBe(1); // one stride between kept points
    expect(log.names).toEqual(['sup', 'unsup', 'mask']);
  });

  it('computes steps per second from the caller clock (no clock in the core)', () => {
    const log = new TrainingLog();
    expect(log.stepsPerSecond).toBeNull();
    log.push({ step: 0, total: 100, losses: { sup: 1 } }, 1000);
    log.push({ step: 50, total: 100, losses: { sup: 0.5 } }, 1500);
    expect(log.stepsPerSecond).toBeCloseTo(100, 9);
    expect(log.step).toBe(50);
    expect(log.total).toBe(100);
  });

  it('refuses a capacity too small to draw', () => {
    expect(() => new TrainingLog(2)).toThrow(/capacity must be an integer >= 8/);
  });
});

describe('trainingChart', () => {
  it('draws loss terms on the left axis and the mask rate dashed on the right [0, 1] axis', () => {
    const log = fixMatchLike(1000, 10);
    const svg = trainingChart(log.points, {
      total: log.total,
      title: 'FixMatch · iris',
      document: shimDocument(),
    });
    const paths = [...svg.querySelectorAll('.lines path')];
    expect(paths.map((p) => p.getAttribute('data-series'))).toEqual(['sup', 'unsup', 'mask']);
    expect(paths.map((p) => p.getAttribute('stroke-dasharray'))).toEqual([null, null, '5 3']);
    for (const p of paths) expect(p.getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/);
    expect([...svg.querySelectorAll('.axis-rate .tick text')].map((t) => t.textContent)).toContain('100%');
    expect(svg.querySelector('.title')?.textContent).toBe('FixMatch · iris');
    // Mask rate 1 at the last step sits on the top of the plot (y = margin.top = 30).
    expect(paths[2].getAttribute('d')!.endsWith(',30')).toBe(true);
  });

  it('says it is waiting before the first event, and keeps hostile names as text', () => {
    const empty = trainingChart([], { document: shimDocument() });
    expect(empty.querySelector('.empty')?.textContent).toBe('Waiting for the first steps');
    const svg = trainingChart([{ step: 0, values: { '<img src=x onerror=alert(1)>': 1 } }], {
      document: shimDocument(),
    });
    expect(svg.querySelector('img')).toBeNull();
    expect(svg.querySelector('.legend-item text')?.textContent).toBe('<img src=x onerror=alert(1)>');
  });
});
