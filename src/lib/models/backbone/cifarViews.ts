/**
 * CIFAR's clean, weak and strong views (PROTOCOL-IMAGE-TEXT.md §6.1) on size × size uint8 RGB,
 * drawn from a view generator (bank/viewSeed.ts): weak = flip (u < 0.5) → 4-px reflect padding →
 * random crop (top, then left); strong = weak → RandAugment → Cutout. The implementation lives in
 * src/lib/augment/image/; this module keeps the names the bank and the CLI import. Normalisation
 * (§6.2) is the caller's last step.
 */
export {
  IMAGENET_MEAN,
  IMAGENET_STD,
  normalise,
  strongCifarView,
  weakCifarView,
} from '../../augment/image/index.ts';
