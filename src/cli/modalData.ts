/**
 * Image and text datasets for the CLI from --data-dir: Hub files where `huggingface-cli download`
 * (or a copy of the Hub's tree) puts them, `DIR/{owner}/{name}/{path}` or `DIR/{id}/{path}`, and
 * Image-CLEF / VisDA as a folder `DIR/{id}/` or a zip `DIR/{id}.zip` in their class-folder layout.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { unzipSync } from 'fflate';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { loadHubSplit, type LoadedHubSplit } from '../lib/data/modal/loadHub.ts';
import { LOCAL_IMAGE_DATASETS, readLocalImages, type LocalDataset } from '../lib/data/modal/localImages.ts';
import { CliError } from './args.ts';

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
  try {
    return await loadHubSplit(spec, split, read);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
}

export function loadLocalImagesNode(id: 'image-clef' | 'visda', dataDir: string | undefined): LocalDataset {
  const spec = LOCAL_IMAGE_DATASETS[id];
  const folder = dataDir && join(dataDir, id);
  const zip = dataDir && join(dataDir, `${id}.zip`);
  let entries: { path: string; bytes: Uint8Array }[];
  if (folder && existsSync(folder) && statSync(folder).isDirectory()) {
    entries = (readdirSync(folder, { recursive: true }) as string[])
      .map((p) => join(folder, p))
      .filter((p) => statSync(p).isFile())
      .map((p) => ({
        path: relative(folder, p).split(sep).join('/'),
        bytes: new Uint8Array(readFileSync(p)),
      }));
  } else if (zip && existsSync(zip)) {
    entries = Object.entries(unzipSync(new Uint8Array(readFileSync(zip)))).map(([path, bytes]) => ({
      path,
      bytes,
    }));
  } else {
    throw new CliError(
      `${spec.title} is not downloadable here (no CORS host): pass --data-dir DIR holding ${id}/ or ${id}.zip ` +
        `in its class-folder layout (${spec.domains.join(', ')} / class folders / images).`,
    );
  }
  try {
    return readLocalImages(spec, entries);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
}
