/**
 * The algorithm registry: one line per algorithm (registry id → family, module, presets).
 * Modules load lazily, so a worker only pulls in the code of the algorithms it runs.
 */
import type { ProtocolMode } from '../types.ts';
import type { Estimator } from './estimator.ts';
import type { PlanOptions } from '../suite/plan.ts';

export type AlgorithmFamily = 'statistical' | 'deep' | 'baseline';

export interface AlgorithmInfo {
  id: string;
  title: string;
  family: AlgorithmFamily;
  /** Which family's preset it belongs to (baselines: the family they anchor). */
  suite: 'statistical' | 'deep';
  /** Relative cost, for planning and the classroom preset ("fast" algorithms). */
  speed: 'fast' | 'medium' | 'slow';
  create(mode: ProtocolMode, options: PlanOptions): Promise<Estimator>;
}

const statistical: AlgorithmInfo[] = [
  {
    id: 'xgb',
    title: 'XGBoost (supervised baseline)',
    family: 'baseline',
    suite: 'statistical',
    speed: 'fast',
    async create() {
      const { GBDTClassifier } = await import('./statistical/gbdt.ts');
      return new GBDTClassifier();
    },
  },
  {
    id: 'ssgmm',
    title: 'SSGMM',
    family: 'statistical',
    suite: 'statistical',
    speed: 'fast',
    async create(_mode, options) {
      const { SSGMM } = await import('./statistical/ssgmm.ts');
      return new SSGMM({ ssgmmSupport: options.ssgmmSupport });
    },
  },
  {
    id: 'tsvm',
    title: 'TSVM',
    family: 'statistical',
    suite: 'statistical',
    speed: 'medium',
    async create() {
      const { TSVM } = await import('./statistical/tsvm.ts');
      return new TSVM();
    },
  },
  {
    id: 'lp',
    title: 'Label Propagation',
    family: 'statistical',
    suite: 'statistical',
    speed: 'fast',
    async create(mode) {
      const { LabelPropagation, LP_README_PARAMS } = await import('./statistical/labelPropagation.ts');
      return new LabelPropagation(mode === 'readme' ? LP_README_PARAMS : {});
    },
  },
  {
    id: 'ls',
    title: 'Label Spreading',
    family: 'statistical',
    suite: 'statistical',
    speed: 'fast',
    async create(mode) {
      const { LabelSpreading, LS_README_PARAMS } = await import('./statistical/labelSpreading.ts');
      return new LabelSpreading(mode === 'readme' ? LS_README_PARAMS : {});
    },
  },
  {
    id: 'tritraining',
    title: 'Tri-Training',
    family: 'statistical',
    suite: 'statistical',
    speed: 'medium',
    async create() {
      const { TriTraining } = await import('./statistical/triTraining.ts');
      return new TriTraining();
    },
  },
  {
    id: 'assemble',
    title: 'Assemble',
    family: 'statistical',
    suite: 'statistical',
    speed: 'medium',
    async create() {
      const { Assemble } = await import('./statistical/assemble.ts');
      return new Assemble();
    },
  },
];

export const ALGORITHMS: readonly AlgorithmInfo[] = statistical;
export const ALGORITHM_IDS: string[] = ALGORITHMS.map((a) => a.id);
export const ALGORITHM_GROUPS: Record<string, string[]> = {
  statistical: ALGORITHMS.filter((a) => a.suite === 'statistical').map((a) => a.id),
  fast: ALGORITHMS.filter((a) => a.speed === 'fast').map((a) => a.id),
  baselines: ALGORITHMS.filter((a) => a.family === 'baseline').map((a) => a.id),
};

export function getAlgorithm(id: string): AlgorithmInfo {
  const a = ALGORITHMS.find((x) => x.id === id);
  if (!a) throw new Error(`Unknown algorithm "${id}". Known algorithms: ${ALGORITHM_IDS.join(', ')}.`);
  return a;
}

export function isBaselineAlgorithm(id: string): boolean {
  return ALGORITHMS.some((a) => a.id === id && a.family === 'baseline');
}
