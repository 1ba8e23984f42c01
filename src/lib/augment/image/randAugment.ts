/**
 * RandAugment of §6.3, LAMDA's RandAugment(n=2, m=10, num_bins=10, random=True): two ops drawn
 * with replacement from the 14 below; for each, a magnitude M = 1 + randint(9) (numpy's
 * randint(1, 10): 10 never occurs), then the op applies when u < 0.5, and a signed op draws its
 * sign (negative when u < 0.5) only when it applies. v = min + (max − min)·M/10 in doubles, in
 * that order, as Python evaluates LAMDA's expression.
 */
import { rotate, shearX, shearY, translateX, translateY } from './affine.ts';
import { brightness, color, contrast, sharpness } from './enhance.ts';
import { autoContrast, equalize, posterize, solarize } from './pointOps.ts';
import { checkImage, uniform, type RgbImage, type ViewRng } from './rgbImage.ts';

export const RAND_AUGMENT_OPS = [
  'AutoContrast',
  'Brightness',
  'Color',
  'Contrast',
  'Equalize',
  'Identity',
  'Posterize',
  'Rotate',
  'Sharpness',
  'ShearX',
  'ShearY',
  'Solarize',
  'TranslateX',
  'TranslateY',
] as const;
export type RandAugmentOp = (typeof RAND_AUGMENT_OPS)[number];

/** Ops per image (n) and the magnitude bound (m: M is drawn in 1…m−1). */
export const RAND_AUGMENT_N = 2;
export const RAND_AUGMENT_M = 10;
const NUM_BINS = 10;

interface OpSpec {
  /** LAMDA's (min_v, max_v); null for the ops without a value. */
  readonly range: readonly [number, number] | null;
  readonly signed: boolean;
  readonly apply: (img: RgbImage, v: number) => RgbImage;
}

const OP_SPECS: Readonly<Record<RandAugmentOp, OpSpec>> = {
  AutoContrast: { range: null, signed: false, apply: (img) => autoContrast(img) },
  Brightness: { range: [0.05, 0.95], signed: false, apply: brightness },
  Color: { range: [0.05, 0.95], signed: false, apply: color },
  Contrast: { range: [0.05, 0.95], signed: false, apply: contrast },
  Equalize: { range: null, signed: false, apply: (img) => equalize(img) },
  Identity: { range: null, signed: false, apply: (img) => img },
  // LAMDA: int(v) bits.
  Posterize: { range: [4, 8], signed: false, apply: (img, v) => posterize(img, Math.trunc(v)) },
  // LAMDA: int(v) degrees, then the sign.
  Rotate: { range: [0, 30], signed: true, apply: (img, v) => rotate(img, Math.trunc(v)) },
  Sharpness: { range: [0.05, 0.95], signed: false, apply: sharpness },
  ShearX: { range: [0, 0.3], signed: true, apply: shearX },
  ShearY: { range: [0, 0.3], signed: true, apply: shearY },
  // LAMDA: ImageOps.solarize(img, 256 − int(v)).
  Solarize: { range: [0, 256], signed: false, apply: (img, v) => solarize(img, 256 - Math.trunc(v)) },
  // LAMDA: int(±v · width), resp. height, pixels.
  TranslateX: {
    range: [0, 0.3],
    signed: true,
    apply: (img, v) => translateX(img, Math.trunc(v * img.width)),
  },
  TranslateY: {
    range: [0, 0.3],
    signed: true,
    apply: (img, v) => translateY(img, Math.trunc(v * img.height)),
  },
};

/** v = min + (max − min)·M/10, in doubles and in LAMDA's order; null for AutoContrast, Equalize, Identity. */
export function opValue(op: RandAugmentOp, magnitude: number): number | null {
  const range = OP_SPECS[op].range;
  if (range === null) return null;
  const [min, max] = range;
  return min + ((max - min) * magnitude) / NUM_BINS;
}

/** Whether the op draws a sign when it applies. */
export function isSignedOp(op: RandAugmentOp): boolean {
  return OP_SPECS[op].signed;
}

/** One op at magnitude M (1…9), negated when `negative` (signed ops only). */
export function applyOp(img: RgbImage, op: RandAugmentOp, magnitude: number, negative = false): RgbImage {
  checkImage(`applyOp(${op})`, img);
  const spec = OP_SPECS[op];
  if (spec === undefined)
    throw new RangeError(
      `applyOp: unknown op ${String(op)}; expected one of ${RAND_AUGMENT_OPS.join(', ')}.`,
    );
  if (!Number.isInteger(magnitude) || magnitude < 1 || magnitude >= RAND_AUGMENT_M)
    throw new RangeError(
      `applyOp(${op}): magnitude must be an integer in [1, ${RAND_AUGMENT_M - 1}]; got ${magnitude}.`,
    );
  if (negative && !spec.signed) throw new RangeError(`applyOp(${op}): this op has no sign.`);
  const v = opValue(op, magnitude) ?? 0;
  return spec.apply(img, negative ? -v : v);
}

/** What one RandAugment slot drew: for tests and for explaining a view. */
export interface RandAugmentStep {
  readonly op: RandAugmentOp;
  readonly magnitude: number;
  readonly applied: boolean;
  /** The sign drawn (signed ops that applied); null when no sign was drawn. */
  readonly negative: boolean | null;
}

/**
 * RandAugment with the view generator: op indices first (randint(14), n times), then per slot M,
 * the apply coin and, for a signed op that applies, the sign coin. Pushes each slot to `trace`.
 */
export function randAugment(img: RgbImage, rng: ViewRng, trace?: RandAugmentStep[]): RgbImage {
  checkImage('randAugment', img);
  const ops: RandAugmentOp[] = [];
  for (let i = 0; i < RAND_AUGMENT_N; i++) ops.push(RAND_AUGMENT_OPS[rng.randint(RAND_AUGMENT_OPS.length)]);
  let out = img;
  for (const op of ops) {
    const magnitude = 1 + rng.randint(RAND_AUGMENT_M - 1);
    const applied = uniform(rng) < 0.5;
    const negative = applied && OP_SPECS[op].signed ? uniform(rng) < 0.5 : null;
    if (applied) out = applyOp(out, op, magnitude, negative === true);
    trace?.push({ op, magnitude, applied, negative });
  }
  return out;
}
