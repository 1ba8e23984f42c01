/**
 * The short glossary: every term a newcomer meets on the Run, Results and Compare pages, in one
 * or two plain sentences. <Term> shows one entry in place; the Learn page lists them all.
 */
export interface GlossaryEntry {
  term: string;
  text: string;
}

export const GLOSSARY = {
  result: {
    term: 'result (cell)',
    text: 'One accuracy number: one algorithm, trained on one dataset, setting, number of labels, seed and t. A run is a grid of these cells.',
  },
  fit: {
    term: 'model fit',
    text: 'One training of a model. Supervised baselines are trained once at t = 0 and that accuracy is reported at every t, so a run has fewer fits than results.',
  },
  t: {
    term: 't (inconsistency)',
    text: 'How much of the unlabeled data does not match the labeled data, from 0 (all matches) to 1 (none does). Measured at t = 0, 0.2, … 1.',
  },
  rac: {
    term: 'RAC',
    text: 'Robustness Analysis Curve: accuracy plotted against t. A flat, high curve means an algorithm that holds up when the unlabeled data drifts.',
  },
  setting: {
    term: 'setting',
    text: 'How the unlabeled data differs: distribution (shifted inputs), feature (other features) or label (unseen classes).',
  },
  labels: {
    term: 'labels',
    text: 'Labeled examples per class given to the learner (for example 5 or 10); all other training rows are unlabeled.',
  },
  seed: {
    term: 'seed',
    text: 'One random draw of the labeled/unlabeled split. Results are averaged over seeds; the band around a curve is ±1 standard deviation over them.',
  },
  band: {
    term: 'band',
    text: 'The shaded area around a curve: ±1 population standard deviation of accuracy over the n seeds, at each t.',
  },
  auc: { term: 'AUC', text: 'Area under the RAC: the average accuracy over all t. Higher is better.' },
  ea: {
    term: 'EA',
    text: 'Expected accuracy: accuracy averaged over t weighted by P_T, how likely each amount of mismatch is where you deploy. Higher is better.',
  },
  pt: {
    term: 'P_T',
    text: 'The distribution of t you expect in practice (uniform by default). EA weights the curve by it.',
  },
  accT0: {
    term: 'Acc_T0',
    text: 'Accuracy at t = 0, reported by the original tables in place of EA (code form).',
  },
  wa: { term: 'WA', text: 'Worst-case accuracy: the lowest point of the curve. Higher is better.' },
  evm: {
    term: 'EVM',
    text: 'Expected variation magnitude: how much accuracy moves between neighbouring t. Lower is better.',
  },
  vs: { term: 'VS', text: 'Variation stability: how steady the slope of the curve is. Lower is better.' },
  rcc: {
    term: 'RCC',
    text: 'Robust correlation coefficient: the correlation of accuracy with t. Near 0 or positive means accuracy does not fall as data drifts.',
  },
  form: {
    term: 'metric form',
    text: 'Integral: the metrics as the paper defines them (areas under the curve). Code: as the original code computes them from the six points, which the original tables report.',
  },
  protocol: {
    term: 'protocol mode',
    text: 'rsb follows the original benchmark code, quirks included (seeds 0–4). readme follows the README wording with those quirks fixed (seeds 0–2). Runs of different modes are never pooled.',
  },
  baseline: {
    term: 'baseline',
    text: 'A supervised model trained on the labeled data only (here XGBoost), drawn dashed, for comparison.',
  },
} as const satisfies Record<string, GlossaryEntry>;

export type GlossaryKey = keyof typeof GLOSSARY;
export const GLOSSARY_KEYS = Object.keys(GLOSSARY) as GlossaryKey[];
