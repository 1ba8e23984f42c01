/**
 * Image datasets the user supplies as a folder or a zip (PROTOCOL-IMAGE-TEXT.md §4.2): Image-CLEF
 * and VisDA have no CORS host, so the page reads them locally (nothing is uploaded) in the
 * original's class-folder layout, `<any name>/<domain>/<class>/<file>`. This module is the layout
 * and the canonical order (§4.3: label ascending, then file name in UTF-8 byte order); the bytes
 * come from a folder pick or from fflate's unzip, the same here.
 */
import { filesContentHash, type FileRow } from './contentHash.ts';
import { unzipSync } from 'fflate';
import { imageFormat } from './imageDecode.ts';

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
  /** Domains of the dataset with no images in the pick (its pairs that need them cannot run). */
  missing: string[];
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

/**
 * Where one path sits in the layout: an image row of a domain's class, a file the layout ignores
 * (lists, read-me files, other folders, files at a domain's top level, §4.2), or the first problem
 * of a wrong layout, in words.
 */
type Placed =
  | { kind: 'row'; root: string; domain: string; label: number; path: string }
  | { kind: 'ignored' }
  | { kind: 'problem'; message: string };

function place(spec: LocalImageSpec, parts: readonly string[], classOf: ReadonlyMap<string, number>): Placed {
  const domains = new Set(spec.domains);
  const n = parts.length;
  const classList = describeClasses(spec);
  const j = n - 3;
  if (j >= 0 && domains.has(parts[j])) {
    const label = classOf.get(parts[j + 1]);
    if (label === undefined)
      return {
        kind: 'problem',
        message: `class folder ${parts[j + 1]} is not one of ${classList} (the layout is <domain>/<class>/<image>)`,
      };
    return {
      kind: 'row',
      root: parts.slice(0, j).join('/'),
      domain: parts[j],
      label,
      path: parts.slice(j).join('/'),
    };
  }
  // Files at a domain's top level (image_list.txt) are ignored; deeper than a class folder is not.
  for (let d = 0; d < n - 3; d++)
    if (domains.has(parts[d]) && classOf.has(parts[d + 1]))
      return {
        kind: 'problem',
        message:
          `images sit directly in their class folder (<domain>/<class>/<image>), and this one is inside ` +
          `${parts.slice(d + 2, n - 1).join('/')} under ${parts[d]}/${parts[d + 1]}`,
      };
  return { kind: 'ignored' };
}

/** "0…11", or "aeroplane, bicycle, …, truck". */
function describeClasses(spec: LocalImageSpec): string {
  const c = spec.classFolders;
  return /^\d+$/.test(c[0]) ? `${c[0]}…${c[c.length - 1]}` : `${c[0]}, ${c[1]}, …, ${c[c.length - 1]}`;
}

/**
 * The dataset of a folder pick or a zip's entries: every image row in canonical order (§4.3) with
 * its domain and label, each domain's counts (other counts than §4.2's are flagged `nonstandard`)
 * and §4.4 hash. A wrong layout fails with the first problem in path order, naming the path: a
 * class folder that is not one of the dataset's, an image below a class folder, two copies of the
 * layout, no domain at all. Whether each row is an image is checkLocalImageFiles's (the importers
 * call both).
 */
export function readLocalImages(spec: LocalImageSpec, entries: readonly LocalEntry[]): LocalDataset {
  const classOf = new Map(spec.classFolders.map((c, i) => [c, i]));
  const roots = new Set<string>();
  const found = new Map<string, FileRow[]>(spec.domains.map((d) => [d, []]));
  let ignored = 0;
  // Path order, so that "the first problem" is the same whatever order the pick or the zip lists.
  const sorted = [...entries].sort((a, b) => compareUtf8(a.path, b.path));
  for (const e of sorted) {
    const parts = e.path.split('/').filter((p) => p !== '');
    if (hidden(parts)) continue;
    const at = place(spec, parts, classOf);
    if (at.kind === 'problem') throw new Error(`${parts.join('/')}: ${at.message}.`);
    if (at.kind === 'ignored') {
      ignored++;
      continue;
    }
    roots.add(at.root);
    found.get(at.domain)!.push({ label: at.label, path: at.path, bytes: e.bytes });
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
  return { id: spec.id, root: [...roots][0] ?? '', domains: out, ignored, missing };
}

/**
 * The first row (canonical order, domain by domain) whose bytes are neither JPEG nor PNG fails the
 * import with its path (§4.2: every file in a class folder is an image). The signature is checked
 * here; a file that has one but does not decode fails when it is first decoded, with its path.
 */
export function checkLocalImageFiles(ds: LocalDataset): void {
  for (const d of Object.values(ds.domains))
    for (const r of d.rows)
      if (!imageFormat(r.bytes))
        throw new Error(
          `${ds.root ? `${ds.root}/` : ''}${r.path}: not a JPEG or PNG image (${r.bytes.length} bytes; every file in a class folder must be one).`,
        );
}

/** A folder pick's or a zip's dataset, checked: readLocalImages, then checkLocalImageFiles. */
export function importLocalImages(spec: LocalImageSpec, entries: readonly LocalEntry[]): LocalDataset {
  const ds = readLocalImages(spec, entries);
  checkLocalImageFiles(ds);
  return ds;
}

/** A zip's files as entries (folders and nothing else left out); fflate, the same in Node and a page. */
export function zipEntries(zip: Uint8Array): LocalEntry[] {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch (e) {
    throw new Error(`not a readable zip file (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  return Object.entries(files)
    .filter(([path]) => !path.endsWith('/'))
    .map(([path, bytes]) => ({ path, bytes }));
}

/** A domain a pair needs, or a message naming the domains the dataset has. */
export function localDomain(ds: LocalDataset, domain: string): LocalDomain {
  const got = ds.domains[domain];
  if (!got) {
    const spec = LOCAL_IMAGE_DATASETS[ds.id];
    throw new Error(
      `${spec.title}: the loaded folder has no domain '${domain}' (it has ${Object.keys(ds.domains).join(', ') || 'none'}); ` +
        `add its ${domain}/<class>/<image> folders and load it again.`,
    );
  }
  return got;
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
