/**
 * The URL the Share dialog offers: the plan and view always, the results when the whole URL stays
 * under MAX_URL_CHARS. When they do not fit, the link carries the plan and view only and
 * `tooLarge` gives the length the full link would have had (the page offers the JSON instead).
 */
import type { ResultsViewState } from '../charts/viewState.ts';
import type { RunRecord } from '../suite/schema.ts';
import { formatHash, planToFields, viewToFields } from './urlState.ts';
import { encodeModalRunLink, encodeRunLink, MAX_URL_CHARS } from './permalink.ts';
import type { ModalRunRecord } from '../suite/schemaV3.ts';

export interface ShareLink {
  url: string;
  /** Length of the full link when it was too long (and left out the results); else null. */
  tooLarge: number | null;
}

/** `base` is the page address before the hash (origin + path + query). */
export async function buildShareLink(
  run: RunRecord,
  view: ResultsViewState,
  base: string,
  maxChars = MAX_URL_CHARS,
): Promise<ShareLink> {
  const fields = { ...planToFields(run.plan), ...viewToFields(view) };
  const full = base + formatHash({ page: 'results', fields: { ...fields, r: await encodeRunLink(run) } });
  if (full.length <= maxChars) return { url: full, tooLarge: null };
  return { url: base + formatHash({ page: 'results', fields }), tooLarge: full.length };
}

/**
 * The link of an image/text run: the view and the results (format 2). An image/text plan has no
 * fields in the Run page's hash, so a run too large for a link gets the view alone, and `tooLarge`
 * tells the dialog to offer the run file instead.
 */
export async function buildModalShareLink(
  run: ModalRunRecord,
  view: ResultsViewState,
  base: string,
  maxChars = MAX_URL_CHARS,
): Promise<ShareLink> {
  const fields = viewToFields(view);
  const full =
    base + formatHash({ page: 'results', fields: { ...fields, r: await encodeModalRunLink(run) } });
  if (full.length <= maxChars) return { url: full, tooLarge: null };
  return { url: base + formatHash({ page: 'results', fields }), tooLarge: full.length };
}
