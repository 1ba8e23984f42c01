/** Colours of the toy (Okabe–Ito, colour-blind safe); the unseen class has its own colour and shape. */
export const CLASS_COLOURS = ['#E69F00', '#0072B2', '#009E73'] as const;
export const UNSEEN_COLOUR = '#CC79A7';
export const CLASS_NAMES = ['orange', 'blue', 'green'] as const;

export function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}
