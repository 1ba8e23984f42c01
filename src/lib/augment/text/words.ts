/**
 * Words as Python's `str.split()` makes them (PROTOCOL-IMAGE-TEXT.md §6.6 rule 1, §6.7): maximal runs
 * of characters that are not whitespace, where whitespace is exactly what `str.isspace()` accepts.
 * JavaScript's `\s` differs (it includes U+FEFF and lacks U+001C–U+001F and U+0085), so the class is
 * written out: the 29 code points for which Python 3.11's `chr(c).isspace()` is true.
 */
const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = new RegExp(`[^${PY_WHITESPACE}]+`, 'g');

/** `text.split()` in Python: no empty words, leading and trailing whitespace ignored. */
export function splitWords(text: string): string[] {
  return text.match(WORD) ?? [];
}
