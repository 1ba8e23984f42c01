/**
 * Image and text datasets for the CLI from --data-dir: Hub files where `huggingface-cli download`
 * (or a copy of the Hub's tree) puts them, `DIR/{owner}/{name}/{path}` or `DIR/{id}/{path}`, and
 * Image-CLEF / VisDA as a zip, a folder `DIR/{id}/` or `DIR/{id}.zip`, or their own folder, in their
 * class-folder layout (checked, the first problem named: data/modal/localImages.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { loadHubSplit, type LoadedHubSplit } from '../lib/data/modal/loadHub.ts';
import {
  checkLocalImageFiles,
  LOCAL_IMAGE_DATASETS,
  readLocalImages,
  zipEntries,
  type LocalDataset,
  type LocalEntry,
} from '../lib/data/modal/localImages.ts';
import { CliError } from './args.ts';

/** Splits read in this process (a pair's domain is read once for all its pairs and banks). */
const hubCache = new Map<string, LoadedHubSplit>();

export async function loadHubSplitNode(
  dataset: string,
  split: string,
  dataDir: string | undefined,
): Promise<LoadedHubSplit> {
  const spec = HUB_DATASETS[dataset];
  if (!spec) throw new CliError(`Unknown Hub dataset "${dataset}".`);
  if (!dataDir)
    throw new CliError(
      `${spec.title} is read from --data-dir DIR holding the Hub files of ${spec.repo} ` +
        `(e.g. huggingface-cli download ${spec.repo} --repo-type dataset --local-dir DIR/${spec.repo}).`,
    );
  const read = async (path: string) => {
    const tried = [join(dataDir, spec.repo, path), join(dataDir, spec.id, path)];
    const found = tried.find((p) => existsSync(p));
    if (!found)
      throw new CliError(`${spec.title}: no ${path} in ${dataDir}; looked at ${tried.join(' and ')}.`);
    return new Uint8Array(readFileSync(found));
  };
  const key = `${dataset}/${split}\n${dataDir}`;
  const cached = hubCache.get(key);
  if (cached) return cached;
  try {
    const loaded = await loadHubSplit(spec, split, read);
    hubCache.set(key, loaded);
    return loaded;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
}

/** Every file under `folder`, as '/'-separated paths relative to it. */
function folderEntries(folder: string): LocalEntry[] {
  return (readdirSync(folder, { recursive: true }) as string[])
    .map((p) => join(folder, p))
    .filter((p) => statSync(p).isFile())
    .map((p) => ({ path: relative(folder, p).split(sep).join('/'), bytes: new Uint8Array(readFileSync(p)) }));
}

const localCache = new Map<string, LocalDataset>();

/**
 * Image-CLEF or VisDA from --data-dir: a .zip, or a folder holding `<id>/` or `<id>.zip`, or the
 * dataset's own folder (its domains inside, at any depth the layout allows). Read once per process.
 * `images`: also check that every row is a JPEG or PNG file (the commands that decode them; `split`
 * reads labels only).
 */
export function loadLocalImagesNode(
  id: 'image-clef' | 'visda',
  dataDir: string | undefined,
  { images = false }: { images?: boolean } = {},
): LocalDataset {
  const spec = LOCAL_IMAGE_DATASETS[id];
  const key = `${id}\n${dataDir ?? ''}\n${images}`;
  const cached = localCache.get(key);
  if (cached) return cached;
  if (!dataDir || !existsSync(dataDir))
    throw new CliError(
      `${spec.title} is not downloadable here (no CORS host): pass --data-dir with its folder or .zip ` +
        `in its class-folder layout (${spec.domains.join(', ')} / class folders / images)` +
        `${dataDir ? `; ${dataDir} does not exist` : ''}.`,
    );
  let entries: LocalEntry[];
  let from = dataDir;
  try {
    if (statSync(dataDir).isFile()) entries = zipEntries(new Uint8Array(readFileSync(dataDir)));
    else if (existsSync(join(dataDir, id)) && statSync(join(dataDir, id)).isDirectory())
      entries = folderEntries((from = join(dataDir, id)));
    else if (existsSync(join(dataDir, `${id}.zip`)))
      entries = zipEntries(new Uint8Array(readFileSync((from = join(dataDir, `${id}.zip`)))));
    else entries = folderEntries(dataDir);
    const ds = readLocalImages(spec, entries);
    if (images) checkLocalImageFiles(ds);
    localCache.set(key, ds);
    return ds;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${from}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
