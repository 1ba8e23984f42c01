/**
 * Image datasets the user supplies as a folder or a zip (PROTOCOL-IMAGE-TEXT.md §4.2): Image-CLEF
 * and VisDA have no CORS host, so the page reads them locally (nothing is uploaded) in the
 * original's class-folder layout, `<any name>/<domain>/<class>/<file>`. This module is the layout
 * and the canonical order (§4.3: label ascending, then file name in UTF-8 byte order); the bytes
 * come from a folder pick or from fflate's unzip, the same here.
 */
import { filesContentHash, type FileRow } from './contentHash.ts';

export interface LocalImageSpec {
  id: 'image-clef' | 'visda';
  title: string;
  domains: readonly string[];
  /** Folder names of the classes; label = index in this list (§4.2). */
  classFolders: readonly string[];
  /** Rows per domain the published runs had [U]; other counts run, flagged `nonstandard`. */
  expectedRows: Readonly<Record<string, number>>;
}

export const LOCAL_IMAGE_DATASETS: Readonly<Record<'image-clef' | 'visda', LocalImageSpec>> = {
  'image-clef': {
    id: 'image-clef',
    title: 'Image-CLEF',
    domains: ['c', 'i', 'p'],
    classFolders: Array.from({ length: 12 }, (_, c) => String(c)),
    expectedRows: { c: 600, i: 600, p: 600 },
  },
  visda: {
    id: 'visda',
    title: 'VisDA-2017',
    domains: ['train', 'validation'],
    // prettier-ignore
    classFolders: ['aeroplane', 'bicycle', 'bus', 'car', 'horse', 'knife', 'motorcycle', 'person', 'plant',
      'skateboard', 'train', 'truck'],
    expectedRows: { train: 152_397, validation: 55_388 },
  },
};

export interface LocalEntry {
  /** '/'-separated path inside the picked folder or the zip. */
  path: string;
  bytes: Uint8Array;
}

export interface LocalDomain {
  domain: string;
  /** Canonical order; `path` is `<domain>/<class>/<file>`. */
  rows: FileRow[];
  /** Rows of each class. */
  classCounts: number[];
  nonstandard: boolean;
  /** §4.4 `rsb-files/1`. */
  sha256: string;
}

export interface LocalDataset {
  id: LocalImageSpec['id'];
  /** The folder above the domains ('' when they sit at the top of the pick). */
  root: string;
  domains: Record<string, LocalDomain>;
  /** Files that are not in a class folder (lists, read-me files), for the import summary. */
  ignored: number;
}

const utf8 = new TextEncoder();

/** UTF-8 byte order (not UTF-16 code units, which order some characters differently). */
export function compareUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** Hidden files and folders, and the resource forks macOS puts in zips, are never images. */
const hidden = (parts: readonly string[]) => parts.some((p) => p.startsWith('.') || p === '__MACOSX');

export function readLocalImages(spec: LocalImageSpec, entries: readonly LocalEntry[]): LocalDataset {
  const domains = new Set(spec.domains);
  const classOf = new Map(spec.classFolders.map((c, i) => [c, i]));
  const roots = new Set<string>();
  const found = new Map<string, FileRow[]>(spec.domains.map((d) => [d, []]));
  let ignored = 0;
  for (const e of entries) {
    const parts = e.path.split('/').filter((p) => p !== '');
    if (hidden(parts)) continue;
    // <root…>/<domain>/<class>/<file>: a file directly inside a class folder of a domain.
    const j = parts.length - 3;
    if (j < 0 || !domains.has(parts[j]) || !classOf.has(parts[j + 1])) {
      ignored++;
      continue;
    }
    roots.add(parts.slice(0, j).join('/'));
    found
      .get(parts[j])!
      .push({ label: classOf.get(parts[j + 1])!, path: parts.slice(j).join('/'), bytes: e.bytes });
  }
  if (roots.size > 1)
    throw new Error(
      `${spec.title}: the pick holds more than one copy of the layout (under ${[...roots].map((r) => `'${r || '.'}'`).join(', ')}); pick one of them.`,
    );
  const missing = spec.domains.filter((d) => found.get(d)!.length === 0);
  if (missing.length === spec.domains.length)
    throw new Error(
      `${spec.title}: no images found in the expected layout <folder>/{${spec.domains.join(',')}}/{${spec.classFolders.slice(0, 3).join(',')},…}/<image files>.`,
    );
  const out: Record<string, LocalDomain> = {};
  for (const d of spec.domains) {
    const rows = found.get(d)!;
    if (rows.length === 0) continue;
    rows.sort((a, b) => a.label - b.label || compareUtf8(fileName(a.path), fileName(b.path)));
    const classCounts = new Array<number>(spec.classFolders.length).fill(0);
    for (const r of rows) classCounts[r.label]++;
    out[d] = {
      domain: d,
      rows,
      classCounts,
      nonstandard: rows.length !== spec.expectedRows[d] || classCounts.some((c) => c === 0),
      sha256: filesContentHash(spec.id, d, rows),
    };
  }
  return { id: spec.id, root: [...roots][0] ?? '', domains: out, ignored };
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
