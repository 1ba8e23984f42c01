/**
 * Notices for the link's fields that a page ignored or corrected, in one shape for every page:
 * invalid values (readHash), and fields that belong to another page (withPage drops them).
 * Pages add their own corrections (the Run page's clamped plan) in the same style.
 */
import {
  PAGE_TITLES,
  parseHash,
  planFromFields,
  readHash,
  withPage,
  type Page,
  type UrlFields,
} from '../../lib/share/urlState.ts';

/** Where each page-bound field is used, for the "belongs to another page" sentence. */
const USED_ON: Partial<Record<keyof UrlFields, Page[]>> = {
  run: ['results'],
  r: ['results'],
  form: ['results', 'compare'],
  pt: ['results', 'compare'],
  hide: ['results', 'compare'],
  explain: ['results', 'compare'],
  sort: ['results', 'compare'],
};

export function urlNotices(hash: string): string[] {
  const reading = readHash(hash);
  const kept = parseHash(withPage(hash, reading.page)).fields;
  // Only page-bound fields: a plan field at its default is dropped by the writer too, not ignored.
  const dropped = (Object.keys(reading.fields) as (keyof UrlFields)[]).filter(
    (k) => !(k in kept) && USED_ON[k],
  );
  const here = PAGE_TITLES[reading.page];
  const elsewhere = dropped.map((k) => {
    const pages = USED_ON[k]!.map((p) => PAGE_TITLES[p]);
    return `Ignored ${k}= on the ${here} page: it is read by the ${pages.join(' and ')} page${pages.length > 1 ? 's' : ''}.`;
  });
  // The Run page lists a linked plan's invalid fields with its own corrections (run-linked-notice).
  const invalid = reading.page === 'run' && planFromFields(reading.fields) ? [] : reading.notices;
  return [...invalid, ...elsewhere];
}
