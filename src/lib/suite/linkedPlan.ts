/**
 * A plan that arrives in a link ("Re-run this plan"): which preset or custom selection the
 * planner should show, and what the browser runner cannot honour (a mode's own quirks and
 * default options; presets are `rsb`).
 */
import type { RunPlanSpec } from './plan.ts';
import type { ProtocolMode } from '../types.ts';
import { defaultPlanOptions } from './plan.ts';
import { presetPlan, PRESET_IDS, type CustomSelection, type PresetId } from './presets.ts';
import { normalizeSubsample } from './subsamplePlan.ts';

export interface LinkedPlanChoice {
  preset: PresetId;
  mode: ProtocolMode;
  selection: CustomSelection;
  /** Model options of the link (they make the plan a custom one). */
  modelOptions?: RunPlanSpec['modelOptions'];
  /** §9 caps of the link (they make the plan a custom one too). */
  subsample?: RunPlanSpec['subsample'];
  /** Plain sentences about parts of the linked plan the runner does not take over. */
  notices: string[];
}

const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Equal model options (absent and empty are equal; key order does not matter). */
function sameModelOptions(a: RunPlanSpec['modelOptions'], b: RunPlanSpec['modelOptions']): boolean {
  const ids = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const id of ids) {
    const x = a?.[id] ?? {},
      y = b?.[id] ?? {};
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) if (x[k] !== y[k]) return false;
  }
  return true;
}

export function planChoiceFromLink(plan: RunPlanSpec): LinkedPlanChoice {
  const selection: CustomSelection = {
    datasets: [...plan.datasets],
    settings: [...plan.settings],
    labels: [...plan.labels],
    algorithms: [...plan.algorithms],
    seeds: [...plan.seeds],
    tIndices: [...plan.tIndices],
  };
  let preset: PresetId = 'custom';
  let modelOptions =
    plan.modelOptions && Object.keys(plan.modelOptions).length ? plan.modelOptions : undefined;
  const subsample = normalizeSubsample(plan.subsample);
  // A plan with model options other than its preset's, or with subsampling (§9), deviates from it: it
  // stays custom (never labelled a preset). classroom-deep's own options are part of that preset.
  const named = (PRESET_IDS as readonly string[]).includes(plan.preset) && plan.preset !== 'custom';
  const p = named && !subsample ? presetPlan(plan.preset as PresetId) : null;
  const keys = ['datasets', 'settings', 'labels', 'algorithms', 'seeds', 'tIndices'] as const;
  // A link that names only the preset (no lists, no options) means that preset as it stands.
  const onlyNamed = keys.every((k) => plan[k].length === 0);
  if (p && ((onlyNamed && !modelOptions) || sameModelOptions(modelOptions, p.modelOptions))) {
    if (onlyNamed || keys.every((k) => sameList(p[k], plan[k]))) {
      preset = plan.preset as PresetId;
      Object.assign(selection, Object.fromEntries(keys.map((k) => [k, [...p[k]]])));
    }
  }
  // The preset brings its own model options; only a custom plan carries the link's.
  if (preset !== 'custom') modelOptions = undefined;
  const notices: string[] = [];
  // Presets are rsb plans; a custom plan keeps its mode, with that mode's quirks and options.
  const mode: ProtocolMode = preset === 'custom' ? plan.mode : 'rsb';
  const quirks = mode === 'rsb' ? 'rsb' : 'fixed';
  if (plan.mode !== mode || plan.quirks !== quirks) {
    notices.push(
      `The link's plan uses protocol mode "${plan.mode}" with quirks "${plan.quirks}"; the runner uses mode "${mode}" with quirks "${quirks}" (the CLI takes --protocol ${plan.mode}).`,
    );
  }
  const defaults = defaultPlanOptions(mode);
  const changed = (Object.keys(defaults) as (keyof typeof defaults)[]).filter(
    (k) => plan.options[k] !== defaults[k],
  );
  if (changed.length)
    notices.push(
      `Protocol options ${changed.join(', ')} differ from the defaults; the runner uses the defaults.`,
    );
  return {
    preset,
    mode,
    selection,
    ...(modelOptions ? { modelOptions } : {}),
    ...(subsample ? { subsample } : {}),
    notices,
  };
}
