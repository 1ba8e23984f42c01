/**
 * `rac-bench run --tier finetune` (PROTOCOL-IMAGE-TEXT.md §2, §7.3, §10): the whole network trains
 * per cell — ResNet from torchvision-layout safetensors (`--backbone resnet50`, or `tiny-resnet` for
 * a reduced test network) on CIFAR (32 px) or on Image-CLEF and VisDA from --data-dir (224 px
 * crops of the decoded files, §6.1), RoBERTa (`roberta-base`, `tiny-roberta`, with --tokenizer) on
 * AG News and IMDB → Amazon — on fresh augmentations, no banks; `--pair` and `--amazon-pool` pick
 * the distribution pairs as the bank tiers do. The work is suite/panelFinetune.ts; this file reads
 * the arguments and the files, says the budget before it starts, and writes the rsb-run/3 file.
 * It is meant for a GPU server (`--backend webgpu`); wasm and cpu serve tiny networks and tests.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { parseSynonymTable, SYNONYM_TABLE_FILE } from '../lib/augment/text/index.ts';
import { PHOTO_CROP } from '../lib/augment/image/index.ts';
import { LOCAL_IMAGE_DECODER } from '../lib/data/modal/imageDecode.ts';
import { isPanelDatasetId, PANEL_DATASETS, type PanelDataset } from '../lib/data/modal/panels.ts';
import { BACKBONES } from '../lib/models/backbone/registry.ts';
import { describeFinetuneBudget } from '../lib/suite/finetuneBudget.ts';
import { finetuneFilesOf, finetuneNetworkOf, NotResnet50Error } from '../lib/suite/finetuneSources.ts';
import { PANEL_METHODS, planAmazonPool, planPairsRefusal, type PanelMethod } from '../lib/suite/panelPlan.ts';
import { describePanelCell, panelCellKey, panelCells, type PanelPlan } from '../lib/suite/panelPlan.ts';
import { FINETUNE_LOOP, finetuneRefusal, photoRowsOf } from '../lib/suite/panelFinetune.ts';
import { loadPanel, localSplit, runPanelPlan } from '../lib/suite/panelRun.ts';
import { parseLabels, parseSeeds, parseTIndices } from '../lib/suite/selectors.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalCellResult } from '../lib/suite/schemaV3.ts';
import { createTokenizer, parseJsonFile } from '../lib/weights/tokenizer.ts';
import { parseSafetensors } from '../lib/weights/safetensors.ts';
import { asCliError, CliError, required } from './args.ts';
import { checkOutPath } from './files.ts';
import { loadHubSplitNode, loadLocalImagesNode } from './modalData.ts';
import { resolveShard } from './shard.ts';
import { cliPanelSettings } from './splitCommand.ts';
import { initNodeBackend, nodeBackendInfo, TFJS_VERSION, type NodeBackend } from './tfNode.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Flags of the bank tiers that mean nothing here: refused rather than silently ignored. */
const BANK_FLAGS = ['bank-dir', 'kw', 'ks'] as const;

export async function finetuneRunCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      setting: { type: 'string', default: 'all' },
      labels: { type: 'string' },
      algorithms: { type: 'string', default: 'supervised' },
      seeds: { type: 'string', default: '0-2' },
      t: { type: 'string', default: 'all' },
      tier: { type: 'string', default: 'finetune' },
      quirks: { type: 'string', default: 'rsb' },
      steps: { type: 'string' },
      batch: { type: 'string' },
      lr: { type: 'string' },
      'data-dir': { type: 'string' },
      backbone: { type: 'string' },
      weights: { type: 'string' },
      tokenizer: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      shard: { type: 'string' },
      'shard-count': { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      'bank-dir': { type: 'string' },
      kw: { type: 'string' },
      ks: { type: 'string' },
      pair: { type: 'string' },
      'amazon-pool': { type: 'string' },
    },
  });
  for (const f of BANK_FLAGS)
    if (values[f] !== undefined)
      throw new CliError(
        `--${f}: the finetune tier trains on fresh augmentations of the rows; it reads no banks.`,
      );
  const amazonPool = values['amazon-pool'];
  if (amazonPool !== undefined && amazonPool !== 'train' && amazonPool !== 'test')
    throw new CliError(`--amazon-pool must be train or test; got "${amazonPool}".`);
  const ids = required(values, 'dataset').split(',');
  for (const id of ids) {
    if (!isPanelDatasetId(id)) throw new CliError(`--dataset ${id} is not an image or text panel.`);
    const refusal = finetuneRefusal(id, { photoRows: true });
    if (refusal) throw new CliError(refusal);
  }
  const modalities = new Set(ids.map((id) => PANEL_DATASETS[id as PanelDataset['id']].modality));
  if (modalities.size > 1)
    throw new CliError('--dataset: a finetune run trains one backbone; give image or text panels, not both.');
  const modality = [...modalities][0]!;
  // The photos enter the network at their 224 px crop (§6.1), CIFAR at 32: one input side per run.
  const photos = ids.filter((id) => id === 'image-clef' || id === 'visda');
  if (photos.length && photos.length !== ids.length)
    throw new CliError(
      `--dataset: ${photos.join(', ')} enter the network at ${PHOTO_CROP} px and the others at their stored size; run them separately.`,
    );
  const imageSide = photos.length ? PHOTO_CROP : 32;
  const backend = values.backend as NodeBackend;
  if (!['webgpu', 'wasm', 'cpu'].includes(backend))
    throw new CliError(`--backend must be webgpu, wasm or cpu; got "${values.backend}".`);
  const quirks = values.quirks;
  if (quirks !== 'rsb' && quirks !== 'fixed')
    throw new CliError(`--quirks must be rsb or fixed; got "${quirks}".`);
  const methods = (
    values.algorithms === 'all'
      ? PANEL_METHODS.filter((m) => m !== 'meanteacher' && !(modality === 'text' && m === 'ict'))
      : values.algorithms!.split(',').map((s) => s.trim())
  ) as PanelMethod[];
  for (const m of methods)
    if (!PANEL_METHODS.includes(m))
      throw new CliError(`--algorithms: "${m}" is not one of ${PANEL_METHODS.join(', ')}.`);
  if (modality === 'text' && methods.includes('ict'))
    throw new CliError(
      '--algorithms: ICT mixes inputs, and token ids cannot be mixed (§7.6): drop ict for text.',
    );
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
  const entry = BACKBONES[values.backbone ?? (modality === 'image' ? 'resnet50' : 'roberta-base')];
  if (!entry || entry.modality !== modality || !entry.tiers.includes('finetune'))
    throw new CliError(
      `--backbone ${values.backbone}: finetune trains ${Object.values(BACKBONES)
        .filter((b) => b.modality === modality && b.tiers.includes('finetune'))
        .map((b) => b.id)
        .join(' or ')} on ${modality} panels.`,
    );
  const weightsPath = required(values, 'weights');
  const weightsBytes = new Uint8Array(readFileSync(weightsPath));
  const weights = await asCliError(() => parseSafetensors(weightsBytes));
  const tokenizerBytes =
    modality === 'text' ? new Uint8Array(readFileSync(required(values, 'tokenizer'))) : null;
  const shard =
    values.shard === undefined ? null : resolveShard(values.shard, process.env, values['shard-count']);

  const plan: PanelPlan = {
    datasets: ids as PanelDataset['id'][],
    settings: [...new Set(ids.flatMap((id) => cliPanelSettings(id as PanelDataset['id'], values.setting)))],
    labels: values.labels ? parseLabels(values.labels) : undefined,
    algorithms: methods,
    seeds: parseSeeds(values.seeds!),
    tIndices: parseTIndices(values.t!),
    tier: 'finetune',
    quirks,
    steps: num('steps'),
    batch: num('batch'),
    lr: num('lr'),
    ...(values.pair ? { pairs: values.pair.split(',').map((p) => p.trim()) } : {}),
    ...(amazonPool ? { amazonPool } : {}),
  };
  const pairRefusal = planPairsRefusal(plan);
  if (pairRefusal) throw new CliError(`--pair: ${pairRefusal}`);
  // A shard runs every n-th cell of the plan (round robin: each shard gets a mix of methods).
  const all = panelCells(plan);
  const skipped = new Set(
    shard ? all.filter((_, i) => i % shard.count !== shard.index - 1).map((c) => panelCellKey(c)) : [],
  );

  // The network, built per cell (its head has the cell's C outputs) from weights parsed once.
  const { model, network } = await asCliError(() => {
    try {
      return finetuneNetworkOf(entry, weights, imageSide);
    } catch (e) {
      if (e instanceof NotResnet50Error)
        throw new CliError(
          `--weights ${basename(weightsPath)}: a reduced ResNet (width ${e.config.width}, blocks ${e.config.blocks.join(', ')}), not ResNet-50: give --backbone tiny-resnet.`,
        );
      throw e;
    }
  });

  // The budget, said before anything heavy starts (§10).
  if (!values.quiet) {
    const costs = all
      .filter((c) => !skipped.has(panelCellKey(c)))
      .map((c) => {
        const k = PANEL_DATASETS[c.dataset].k;
        const C = c.setting === 'label' ? k / 2 : k;
        const loop = FINETUNE_LOOP[c.dataset];
        // Training only: scoring E is one forward per test row, under 0.1 % of a cell (§10).
        return {
          C,
          cost: { method: c.method, steps: plan.steps ?? loop.S, batch: plan.batch ?? loop.B, testRows: 0 },
        };
      });
    if (costs.length) {
      const lines = describeFinetuneBudget(
        model(costs[0].C),
        costs.map((c) => c.cost),
      );
      process.stderr.write(`${lines.join('\n')}\n`);
    }
  }

  await initNodeBackend(backend);
  const info = nodeBackendInfo();
  if (!values.quiet)
    process.stderr.write(
      `Backend ${backend}${info?.adapterText ? ` on ${info.adapterText}` : ''}${info?.software ? ' (software adapter: slow)' : ''}` +
        `${shard ? `, shard ${shard.index}/${shard.count}` : ''}.\n`,
    );
  const weightsSha = bytesToHex(sha256(weightsBytes));
  const tokenizer = tokenizerBytes
    ? await asCliError(() => createTokenizer(parseJsonFile(tokenizerBytes, 'tokenizer.json')))
    : null;
  const synonyms =
    modality === 'text'
      ? parseSynonymTable(readFileSync(join(PACKAGE_ROOT, 'public', SYNONYM_TABLE_FILE), 'utf8'))
      : null;
  const created = new Date().toISOString();
  const cells: ModalCellResult[] = [];
  await asCliError(() =>
    runPanelPlan(plan, {
      files: () => Promise.reject(new Error('finetune reads no banks')),
      async finetuneFiles(id, _settings, pair) {
        const loaded = await loadPanel(
          id,
          (f) =>
            id === 'image-clef' || id === 'visda'
              ? Promise.resolve(
                  localSplit(loadLocalImagesNode(id, values['data-dir'], { images: true }), f.split),
                )
              : loadHubSplitNode(f.dataset, f.split, values['data-dir']),
          { pair, amazonPool: planAmazonPool(plan) },
        );
        const files = finetuneFilesOf({
          dataset: id,
          loaded,
          entry,
          network,
          weights: { source: `file:${basename(weightsPath)}`, sha256: weightsSha },
          text: tokenizer
            ? {
                render: {
                  tokenizer,
                  synonyms: synonyms!,
                  maxLength: entry.maxLength!,
                  padWord: entry.padWord!,
                },
                tokenizerSha256: bytesToHex(sha256(tokenizerBytes!)),
              }
            : null,
        });
        // Image-CLEF, VisDA: decoded files of any size through §6.1's resize and shared crop.
        return files.modality === 'image' && (id === 'image-clef' || id === 'visda')
          ? {
              ...files,
              imageSize: PHOTO_CROP,
              decoder: LOCAL_IMAGE_DECODER,
              photo: photoRowsOf(loaded.splits),
            }
          : files;
      },
      done: skipped,
      env: {
        backend,
        float_precision: 'float32',
        tfjs_version: TFJS_VERSION,
        app_version: '0.1.0',
        prng: 'mt19937-numpy-legacy',
        device: `node ${process.version} ${platform()} ${release()} (${cpus()[0]?.model ?? 'cpu'})`,
      },
      onCellStart(ref, done, total) {
        if (!values.quiet)
          process.stderr.write(`[${done + 1}/${total}] ${describePanelCell(ref)}: training…\n`);
      },
      onCell(cell, ref) {
        cells.push(cell);
        if (!values.quiet)
          process.stderr.write(
            `${describePanelCell(ref)}: accuracy ${cell.outcome.accuracy?.toFixed(4)} ` +
              `(${(cell.timing.fit_ms / 1000).toFixed(1)} s fit)\n`,
          );
      },
      now: () => performance.now(),
      clock: () => new Date().toISOString(),
    }),
  );
  const run = parseRunV3({
    schema: RUN_SCHEMA_V3,
    id: `cli-${created}`,
    created_at: created,
    finished_at: new Date().toISOString(),
    plan: {
      spec: 'image-text',
      tier: 'finetune',
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
      options: ids.includes('imdb-amazon') ? { amazonPool: planAmazonPool(plan) } : {},
    },
    env: {
      runtime: `node ${process.version}`,
      backends: [backend],
      adapter: info?.adapter ?? null,
      ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
    },
    cells,
  });
  writeFileSync(`${out}.tmp-${process.pid}`, `${JSON.stringify(run, null, 1)}\n`);
  renameSync(`${out}.tmp-${process.pid}`, out);
  process.stderr.write(`Wrote ${cells.length} finetune cells (rsb-run/3) to ${out}.\n`);
  return 0;
}
