/**
 * Model options on a plan: `algorithm.option=value` assignments (CLI `--option`, URL `opt=`) to and
 * from the plan's `modelOptions`, checked against the catalogue's schemas. An option bound to a
 * protocol option (ssgmm.support ↔ options.ssgmmSupport) is stored there instead.
 */
import {
  defaultModelOptions,
  findAlgorithm,
  formatOptionAssignment,
  parseOptionAssignment,
  resolveModelOptions,
  type ModelOptions,
  type OptionValue,
} from '../models/catalogue.ts';
import { ParamError } from '../models/params.ts';
import type { PlanOptions, RunPlanSpec } from './plan.ts';

/**
 * The plan's `options` and `modelOptions` after the assignments (later ones win). With `strict`
 * (the CLI), an assignment for an algorithm the plan does not run is refused (it would silently do
 * nothing); the URL is lenient (a link may keep options of an algorithm unticked for now). Values equal
 * to the mode's default are dropped from `modelOptions`, so a default plan stays a default plan.
 */
export function applyOptionAssignments(
  plan: Pick<RunPlanSpec, 'mode' | 'algorithms' | 'options' | 'modelOptions'>,
  assignments: readonly string[],
  { strict = true }: { strict?: boolean } = {},
): { options: PlanOptions; modelOptions?: Record<string, Record<string, OptionValue>> } {
  const options = { ...plan.options } as PlanOptions & Record<string, unknown>;
  const model: Record<string, Record<string, OptionValue>> = structuredClone(plan.modelOptions ?? {});
  for (const text of assignments) {
    const { algorithm, option, value } = parseOptionAssignment(text);
    if (strict && !plan.algorithms.includes(algorithm)) {
      throw new ParamError(
        `Model option "${text}": ${algorithm} is not among the plan's algorithms (${plan.algorithms.join(', ')}).`,
      );
    }
    const spec = findAlgorithm(algorithm)!;
    const bound = spec.options[option].protocolOption;
    if (bound) {
      options[bound] = value;
      continue;
    }
    const byAlgo = (model[algorithm] ??= {});
    if (defaultModelOptions(spec, plan.mode)[option] === value) delete byAlgo[option];
    else byAlgo[option] = value;
    if (Object.keys(byAlgo).length === 0) delete model[algorithm];
  }
  return Object.keys(model).length ? { options, modelOptions: model } : { options };
}

/** The plan's model options as assignments, in catalogue option order (for the URL and the CLI). */
export function formatModelOptions(modelOptions: RunPlanSpec['modelOptions']): string[] {
  const out: string[] = [];
  for (const [algorithm, opts] of Object.entries(modelOptions ?? {})) {
    for (const [option, value] of Object.entries(opts))
      out.push(formatOptionAssignment(algorithm, option, value));
  }
  return out;
}

/**
 * The resolved model options of each algorithm of a plan (defaults of its mode, then the plan's
 * values), for the cost model; an unknown algorithm or a bad value gives no options (the run
 * itself reports those).
 */
export function planOptionsOf(plan: Pick<RunPlanSpec, 'mode' | 'options' | 'modelOptions'>) {
  return (algorithm: string): ModelOptions | undefined => {
    const spec = findAlgorithm(algorithm);
    if (!spec) return undefined;
    try {
      return resolveModelOptions(spec, plan.mode, plan.modelOptions?.[algorithm], plan.options);
    } catch {
      return undefined;
    }
  };
}
