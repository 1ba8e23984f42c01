/**
 * The image and text presets (PROTOCOL-IMAGE-TEXT.md §2, §7.6, §9, §10): ids apart from the tabular
 * ones, each modality × tier expanded to the paper's panels with its methods, seeds, tier, caps,
 * backbone and bank views; the cell counts the published grid implies (§10: 1 728 image runs, 378
 * text runs per tier).
 */
import { describe, expect, it } from 'vitest';
import { PANEL_DATASETS } from '../../../src/lib/data/modal/panels.ts';
import { BACKBONES } from '../../../src/lib/models/backbone/registry.ts';
import { CLASSROOM_CAPS } from '../../../src/lib/protocol/panelSubsample.ts';
import { panelCells, type PanelPlan } from '../../../src/lib/suite/panelPlan.ts';
import {
  IMAGE_PRESET_METHODS,
  PANEL_PRESET_IDS,
  PANEL_PRESETS,
  panelPreset,
  panelPresetPlan,
  presetPanelPlan,
  TEXT_PRESET_METHODS,
} from '../../../src/lib/suite/panelPresets.ts';
import { PRESET_ALIASES, PRESET_IDS, resolvePresetId } from '../../../src/lib/suite/presets.ts';

/** Cells of a plan: per dataset, its settings, pairs under distribution, methods, seeds, t. */
function cellsOf(p: (typeof PANEL_PRESETS)[keyof typeof PANEL_PRESETS]['plan']): number {
  let n = 0;
  for (const d of p.datasets) {
    const ds = PANEL_DATASETS[d];
    for (const s of p.settings) {
      if (ds.labels[s] === undefined) continue;
      const units = s === 'distribution' ? (ds.pairs ?? []).filter((x) => p.pairs.includes(x)).length : 1;
      n += units * p.algorithms.length * p.seeds.length * p.tIndices.length;
    }
  }
  return n;
}

describe('image and text presets', () => {
  it('have ids that no tabular preset or alias uses, and the tabular resolver refuses them', () => {
    for (const id of PANEL_PRESET_IDS) {
      expect(PRESET_IDS as readonly string[]).not.toContain(id);
      expect(Object.keys(PRESET_ALIASES)).not.toContain(id);
      expect(() => resolvePresetId(id)).toThrow(/Unknown preset/);
    }
    expect(() => panelPreset('paper')).toThrow(/Unknown image\/text preset "paper".*image-classroom/);
  });

  it('expand to the paper’s panels, methods (§7.6), seeds 0–2 and every t', () => {
    for (const id of PANEL_PRESET_IDS) {
      const p = PANEL_PRESETS[id];
      expect(p.plan.tier).toBe(id.split('-')[1]);
      expect(p.plan.seeds).toEqual([0, 1, 2]);
      expect(p.plan.tIndices).toEqual([0, 1, 2, 3, 4, 5]);
      expect(p.plan.quirks).toBe('rsb');
      expect(p.plan.algorithms).not.toContain('meanteacher');
      if (p.modality === 'image') {
        expect(p.plan.datasets).toEqual(['cifar10', 'cifar100', 'image-clef', 'visda']);
        expect(p.plan.algorithms).toEqual(IMAGE_PRESET_METHODS);
        expect(p.plan.algorithms).toHaveLength(8);
        expect(p.plan.pairs).toEqual([
          ...PANEL_DATASETS['image-clef'].pairs!,
          ...PANEL_DATASETS.visda.pairs!,
        ]);
        // 4 CIFAR panels + 6 + 2 pairs = 12 panel units × 8 × 3 × 6 (§10: 576 + 864 + 288 runs).
        expect(cellsOf(p.plan)).toBe(576 + 864 + 288);
      } else {
        expect(p.plan.datasets).toEqual(['ag_news', 'imdb-amazon']);
        expect(p.plan.algorithms).toEqual(TEXT_PRESET_METHODS);
        expect(p.plan.algorithms).not.toContain('ict');
        expect(p.plan.algorithms).toHaveLength(7);
        expect(cellsOf(p.plan)).toBe(252 + 126); // §10
        expect(p.plan.amazonPool).toBe(p.tier === 'classroom' ? 'test' : 'train');
      }
      // Backbones: the tier's (§2), of the preset's modality.
      expect(BACKBONES[p.backbone].modality).toBe(p.modality);
      if (p.tier !== 'finetune') expect(BACKBONES[p.backbone].tiers).toContain(p.tier);
      expect(p.views).toEqual(
        p.tier === 'finetune' ? null : p.tier === 'classroom' ? { Kw: 2, Ks: 1 } : { Kw: 2, Ks: 2 },
      );
      expect(p.plan.caps).toEqual(p.tier === 'classroom' ? CLASSROOM_CAPS : undefined);
    }
    expect(PANEL_PRESETS['image-classroom'].backbone).toBe('mnv3-small');
    expect(PANEL_PRESETS['text-classroom'].backbone).toBe('minilm-l6');
    expect(PANEL_PRESETS['image-features'].backbone).toBe('resnet50');
    expect(PANEL_PRESETS['text-features'].backbone).toBe('roberta-base');
  });

  it('give fresh copies, and one panel as a plan the page runs (none for finetune)', () => {
    const a = panelPresetPlan('image-features');
    a.seeds.push(9);
    expect(PANEL_PRESETS['image-features'].plan.seeds).toEqual([0, 1, 2]);
    const one = presetPanelPlan('image-classroom', 'cifar10') as PanelPlan;
    expect(one).toEqual({
      datasets: ['cifar10'],
      settings: ['feature', 'label'],
      algorithms: IMAGE_PRESET_METHODS,
      seeds: [0, 1, 2],
      tIndices: [0, 1, 2, 3, 4, 5],
      tier: 'classroom',
      quirks: 'rsb',
      caps: CLASSROOM_CAPS,
    });
    // 2 settings × 8 methods × 3 seeds × 6 t, as the runner expands it.
    expect(panelCells(one)).toHaveLength(288);
    expect(presetPanelPlan('image-finetune', 'cifar10')).toBeNull();
    expect(presetPanelPlan('text-features', 'cifar10')).toBeNull();
  });
});

describe('the preset in the Run page’s link', () => {
  it('travels as panel=<id> on the Run page only', async () => {
    const { readHash, withFields, withPage } = await import('../../../src/lib/share/urlState.ts');
    const hash = withFields('#/run?v=1&backend=wasm', { panel: 'image-features' });
    expect(hash).toBe('#/run?v=1&backend=wasm&panel=image-features');
    expect(readHash(hash).fields.panel).toBe('image-features');
    expect(withPage(hash, 'results')).toBe('#/results?v=1&backend=wasm');
    const bad = readHash('#/run?v=1&panel=<script>');
    expect(bad.fields.panel).toBe('');
    expect(bad.notices[0]).toMatch(/^Ignored panel="<script>" \(expected an image\/text preset id\)/);
  });
});
