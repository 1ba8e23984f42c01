/**
 * JSON with every object's keys sorted, so that equal values give equal text whatever order their
 * fields were written in: how a run's plan signature, a checkpoint's fingerprint and a merge's
 * comparisons decide "the same". `undefined` (which JSON.stringify leaves undefined) reads 'undefined'.
 */
export function canonicalJson(x: unknown): string {
  return (
    JSON.stringify(x, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : v,
    ) ?? 'undefined'
  );
}
