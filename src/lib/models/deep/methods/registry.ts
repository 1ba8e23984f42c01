/**
 * The deep methods, one record each (PROTOCOL.md §7.4, §7.6): id, the class name of messages, the
 * rows each training step forwards (the cost model's count, deep/cost.ts) and the hyperparameters
 * of the loss with their defaults per protocol mode, constraints and documentation. The catalogue
 * makes these parameters model options (`fixmatch.threshold=0.9`), each method's file takes its
 * defaults from here, and the only other place a method is named is its factory (index.ts,
 * checked against this table by the type system). No tfjs here: the page's estimates read it.
 */
import type { ProtocolMode } from '../../../types.ts';
import { integerIn, interval, type Constraint } from '../../params.ts';

export interface MethodParamSpec {
  default: Readonly<Record<ProtocolMode, number>>;
  constraint: Constraint;
  doc: string;
}

export interface DeepMethodRecord {
  /** scikit-learn style class name for messages. */
  className: string;
  /**
   * Forwards per labeled row and step: `grad` with the gradient, `noGrad` without (teacher,
   * targets); `fixedGrad` the gradient count under quirks 'fixed' where it differs.
   */
  steps: { grad: number; noGrad: number; fixedGrad?: number };
  /** The unlabeled views a step draws (the method's `views`): what a feature bank must hold. */
  views: readonly ('weak' | 'strong')[];
  params: Readonly<Record<string, MethodParamSpec>>;
}

const same = (v: number) => ({ rsb: v, readme: v });
const p = (
  def: Readonly<Record<ProtocolMode, number>> | number,
  constraint: Constraint,
  doc: string,
): MethodParamSpec => ({
  default: typeof def === 'number' ? same(def) : def,
  constraint,
  doc,
});
const threshold = (v: number) =>
  p(v, interval(0, 1, 'both'), 'Confidence a pseudo-label needs to count (τ).');
const lambdaU = (def: Readonly<Record<ProtocolMode, number>> | number) =>
  p(def, interval(0, undefined, 'left'), 'Weight λ_u of the unsupervised loss.');
const warmup = (v: number) =>
  p(v, interval(0, 1, 'right'), 'Warm-up fraction w of r(it) = clamp(it / (w·S), 0, 1).');
const mu = (v: number) => p(v, integerIn(1, 64), 'Unlabeled rows per labeled row in a batch (μ).');
const temperature = (v: number) =>
  p(v, interval(0, undefined, 'neither'), 'Sharpening temperature T of the targets.');

export const DEEP_METHODS = {
  ftt: { className: 'FTTransformer', steps: { grad: 1, noGrad: 0 }, views: [], params: {} },
  pseudolabel: {
    className: 'PseudoLabel',
    // The student on the weak view; its own detached softmax.
    steps: { grad: 2, noGrad: 0 },
    views: ['weak'],
    params: { threshold: threshold(0.95), lambdaU: lambdaU(1), warmup: warmup(0.4) },
  },
  pimodel: {
    className: 'PiModel',
    steps: { grad: 2, noGrad: 1 },
    views: ['weak', 'weak'],
    params: { lambdaU: lambdaU({ rsb: 10, readme: 1 }), warmup: warmup(0.4) },
  },
  meanteacher: {
    className: 'MeanTeacher',
    // Quirks 'rsb': the student is detached too (one more no-grad forward, none with the gradient).
    steps: { grad: 1, noGrad: 2, fixedGrad: 2 },
    views: ['weak', 'weak'],
    params: { lambdaU: lambdaU({ rsb: 50, readme: 1 }), warmup: warmup(0.4) },
  },
  ict: {
    className: 'ICT',
    // Mixed rows with the gradient; the shadow on the batch.
    steps: { grad: 2, noGrad: 1 },
    views: ['weak'],
    params: {
      alpha: p(0.5, interval(0, undefined, 'neither'), 'Beta(α, α) of the mixup weight λ.'),
      lambdaU: lambdaU(100),
      warmup: warmup(1 / 64),
    },
  },
  uda: {
    className: 'UDA',
    // μ = 7: strong view with the gradient, weak view without.
    steps: { grad: 8, noGrad: 7 },
    views: ['weak', 'strong'],
    params: { threshold: threshold(0.8), temperature: temperature(0.4), lambdaU: lambdaU(1), mu: mu(7) },
  },
  fixmatch: {
    className: 'FixMatch',
    steps: { grad: 8, noGrad: 7 },
    views: ['weak', 'strong'],
    params: { threshold: threshold(0.95), temperature: temperature(0.5), lambdaU: lambdaU(1), mu: mu(7) },
  },
  flexmatch: {
    className: 'FlexMatch',
    steps: { grad: 8, noGrad: 7 },
    views: ['weak', 'strong'],
    params: { threshold: threshold(0.95), lambdaU: lambdaU(1), mu: mu(7) },
  },
  softmatch: {
    className: 'SoftMatch',
    steps: { grad: 8, noGrad: 7 },
    views: ['weak', 'strong'],
    params: {
      emaP: p(0.999, interval(0, 1, 'left'), 'EMA decay of the confidence statistics (m).'),
      lambdaU: lambdaU(1),
      mu: mu(7),
      threshold: threshold(0.95),
      temperature: temperature(0.5),
    },
  },
} as const satisfies Record<string, DeepMethodRecord>;

export type DeepMethodId = keyof typeof DEEP_METHODS;

export const DEEP_METHOD_IDS = Object.keys(DEEP_METHODS) as DeepMethodId[];

/** A method's record (its params widened for generic code). */
export function methodRecord(id: DeepMethodId): DeepMethodRecord {
  return DEEP_METHODS[id];
}

/** The loss hyperparameters of `id` at their defaults for `mode`. */
export function methodDefaults(id: DeepMethodId, mode: ProtocolMode = 'rsb'): Record<string, number> {
  return Object.fromEntries(Object.entries(methodRecord(id).params).map(([k, s]) => [k, s.default[mode]]));
}
