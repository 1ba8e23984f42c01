/**
 * The Learn page's own URL keys, Playground style: one declarative table, parsed from and written
 * into the hash next to the app's keys (which are left as they are). `#classroom` or `classroom=1`
 * turns classroom mode on; `*_hide=1` hides a control; `toy_seed` etc. reproduce a picture.
 * Unknown or invalid values fall back to the default. Pure: strings in, strings out.
 */
import { SETTINGS, type Setting } from '../types.ts';
import { TOY_SHAPES, type ToyShape } from './generate.ts';

/** Controls a teacher can hide with `<name>_hide=1`. */
export const HIDE_KEYS = ['setting', 'slider', 'seed', 'shape', 'backend', 'nav', 'demo', 'toy'] as const;
export type HideKey = (typeof HIDE_KEYS)[number];

export const HIDE_DOCS: Record<HideKey, string> = {
  setting: 'the switch between the three settings',
  slider: 'the t slider (the picture stays at toy_t)',
  seed: 'the seed box and the "new points" button',
  shape: 'the choice between two moons and blobs',
  backend: 'the compute backend picker and the device badge',
  nav: 'the site navigation bar',
  demo: 'the guided demo on iris and wine',
  toy: 'the 2-D toy',
};

export interface ClassroomUrl {
  classroom: boolean;
  toySeed: number;
  toyShape: ToyShape;
  toySetting: Setting;
  /** t in [0, 1]. */
  toyT: number;
  hide: Record<HideKey, boolean>;
}

export const CLASSROOM_DEFAULTS: Readonly<Omit<ClassroomUrl, 'hide' | 'classroom'>> = Object.freeze({
  toySeed: 1,
  toyShape: 'moons',
  toySetting: 'distribution',
  toyT: 0,
});

const MAX_SEED = 0xffffffff;

function splitHash(hash: string): { path: string; params: URLSearchParams } {
  const body = hash.replace(/^#/, '');
  const q = body.indexOf('?');
  return {
    path: q < 0 ? body : body.slice(0, q),
    params: new URLSearchParams(q < 0 ? '' : body.slice(q + 1)),
  };
}

const isOn = (raw: string | null): boolean => raw === '1' || raw === 'true';

function parseSeed(raw: string | null): number {
  if (raw === null || !/^\d{1,10}$/.test(raw)) return CLASSROOM_DEFAULTS.toySeed;
  const n = Number(raw);
  return n <= MAX_SEED ? n : CLASSROOM_DEFAULTS.toySeed;
}

function parseT(raw: string | null): number {
  if (raw === null || raw.trim() === '') return CLASSROOM_DEFAULTS.toyT;
  const x = Number(raw);
  return Number.isFinite(x) && x >= 0 && x <= 1 ? x : CLASSROOM_DEFAULTS.toyT;
}

function oneOf<T extends string>(raw: string | null, options: readonly T[], fallback: T): T {
  return raw !== null && (options as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

export function parseClassroomHash(hash: string): ClassroomUrl {
  const { path, params } = splitHash(hash);
  const hide = Object.fromEntries(HIDE_KEYS.map((k) => [k, isOn(params.get(`${k}_hide`))])) as Record<
    HideKey,
    boolean
  >;
  return {
    classroom: path.replace(/^\/+|\/+$/g, '').toLowerCase() === 'classroom' || isOn(params.get('classroom')),
    toySeed: parseSeed(params.get('toy_seed')),
    toyShape: oneOf(params.get('toy_shape'), TOY_SHAPES, CLASSROOM_DEFAULTS.toyShape),
    toySetting: oneOf(params.get('toy_setting'), SETTINGS, CLASSROOM_DEFAULTS.toySetting),
    toyT: parseT(params.get('toy_t')),
    hide,
  };
}

/** t as written in a URL: at most 3 decimals, no trailing zeros. */
export function formatT(t: number): string {
  return String(Math.round(t * 1000) / 1000);
}

/**
 * The same hash with the toy keys set (a default value removes its key); the path, the app's keys,
 * `classroom` and the `*_hide` keys are kept as they are.
 */
export function withToyKeys(
  hash: string,
  toy: Pick<ClassroomUrl, 'toySeed' | 'toyShape' | 'toySetting' | 'toyT'>,
): string {
  const { path, params } = splitHash(hash);
  const set = (key: string, value: string, fallback: string) =>
    value === fallback ? params.delete(key) : params.set(key, value);
  set('toy_seed', String(toy.toySeed), String(CLASSROOM_DEFAULTS.toySeed));
  set('toy_shape', toy.toyShape, CLASSROOM_DEFAULTS.toyShape);
  set('toy_setting', toy.toySetting, CLASSROOM_DEFAULTS.toySetting);
  set('toy_t', formatT(toy.toyT), formatT(CLASSROOM_DEFAULTS.toyT));
  const qs = params.toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}
