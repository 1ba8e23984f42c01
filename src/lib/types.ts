/** Shared plain types of the core. Everything here is serialisable (crosses the worker boundary). */

export type BuiltinDatasetId = 'iris' | 'wine' | 'letter' | 'covertype';
export type Setting = 'distribution' | 'feature' | 'label';
export type ProtocolMode = 'rsb' | 'readme';
export type Quirks = 'rsb' | 'fixed';

export const SETTINGS: readonly Setting[] = ['distribution', 'feature', 'label'];

/** The inconsistency grid. Literal doubles: never compute i*0.2 (3*0.2 !== 0.6). PROTOCOL.md §1. */
export const T_GRID = [0, 0.2, 0.4, 0.6, 0.8, 1.0] as const;
export type TValue = (typeof T_GRID)[number];

/** A loaded dataset in canonical row order. X is row-major float64 (N × d); y holds 0..k-1. */
export interface Dataset {
  id: string;
  N: number;
  d: number;
  k: number;
  X: Float64Array;
  y: Int32Array;
  featureNames: string[];
  classNames: string[];
  /** SHA-256 of the canonical content (PROTOCOL.md §4), lower-case hex. */
  sha256: string;
}

/** A dense row-major float32 matrix: the form model inputs take. */
export interface Matrix {
  data: Float32Array;
  rows: number;
  cols: number;
}
