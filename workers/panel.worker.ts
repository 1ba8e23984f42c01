/**
 * The page's image/text runs (PROTOCOL-IMAGE-TEXT.md §4–§7): one worker, one run at a time.
 * It reads the Hub files (from IndexedDB, downloading what is missing with progress), builds the
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
import { PANEL_DATASETS } from '../src/lib/data/modal/panels.ts';
import { describeAdapter } from '../src/lib/env/device.ts';
import { backboneEntry, backboneWeightsUrl } from '../src/lib/models/backbone/registry.ts';
import { buildBackbone } from '../src/lib/models/backbone/build.ts';
import type { Backbone } from '../src/lib/models/backbone/backbone.ts';
import { IMAGENET_MEAN, IMAGENET_STD } from '../src/lib/models/backbone/cifarViews.ts';
import {
  bankVariants,
  extractImageBank,
  imageBankKey,
  loadImagePanel,
  panelBankOf,
  runPanelPlan,
} from '../src/lib/suite/panelRun.ts';
import { panelCellKey, panelCells, planCaps, type PanelPlan } from '../src/lib/suite/panelPlan.ts';
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
  /** A registry backbone; `fileKey` names weights the user picked, kept in IndexedDB. */
  backbone: { id: string; fileKey?: string };
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
  | { kind: 'cell'; cell: ModalCellResult; done: number; total: number };

const SAVE_PARTIAL_EVERY_MS = 5_000;

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
          settings: plan.settings,
          labels: [...new Set(all.map((c) => c.labels))],
          algorithms: plan.algorithms,
          seeds: plan.seeds,
          tIndices: plan.tIndices,
          mode: 'rsb',
          quirks: plan.quirks,
          options: { bank: { K_w: req.Kw, K_s: req.Ks, seed: req.bankSeed, dtype: 'float16' } },
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
    try {
      await runPanelPlan(plan, {
        done,
        async files(dataset, settings) {
          const panel = PANEL_DATASETS[dataset];
          if (panel.modality !== 'image' || panel.source !== 'hub')
            throw new Error(`${panel.title} does not run in the page yet (its suite brings it).`);
          emit({ kind: 'stage', text: `Reading ${panel.title}…` });
          const spec = HUB_DATASETS[dataset];
          const loaded = await loadImagePanel(dataset, (f) =>
            loadHubSplit(spec, f.split, async (path) => {
              const got = await loadHashedFile({
                url: hubFileUrl(spec.repo, path),
                cache: files,
                onProgress: (p) =>
                  emit({ kind: 'download', text: path, loaded: p.loaded, total: p.total ?? null }),
              });
              return { bytes: got.bytes, sha256: got.sha256 };
            }),
          );
          backbone ??= buildBackbone(entry.id, parseSafetensors(weights.bytes), size(dataset));
          const bankOf = async (file: 'train' | 'test'): Promise<Bank> => {
            const variants = [...new Set(settings.flatMap((s) => bankVariants(s, file)))];
            const request = {
              loaded: loaded.splits.get(file)!,
              contentSha256: loaded.hashes.get(file)!,
              backbone: backbone!,
              weightsSha256: weights.sha256,
              variants,
              // CIFAR's test rows are only scored (clean views): their bank holds nothing else.
              Kw: file === 'test' ? 0 : req.Kw,
              Ks: file === 'test' ? 0 : req.Ks,
              seed: req.bankSeed,
            };
            const key = imageBankKey(request);
            const kept = await banks.load(key);
            if (kept) return kept;
            const text = `Feature bank of ${panel.title} ${file}`;
            const resumeFrom = await banks.loadPartial(key);
            let lastSave = performance.now();
            const builder = await extractImageBank(request, {
              resumeFrom,
              tick,
              async checkpoint(b) {
                if (performance.now() - lastSave < SAVE_PARTIAL_EVERY_MS) return;
                // A full quota must not stop the extraction: only its resumability is lost.
                await banks.savePartial(b).catch(() => undefined);
                lastSave = performance.now();
              },
              now: () => performance.now(),
              onProgress: (p) => emit({ kind: 'bank', text, ...p }),
            });
            const file_ = builder.toFile();
            await banks.put(file_.bytes);
            await banks.deletePartial(key);
            return readBankFile(file_.bytes, key);
          };
          const train = await bankOf('train');
          const test = await bankOf('test');
          const bank = panelBankOf(train, test);
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
          };
        },
        input: {
          image_size: 32,
          normalization: 'imagenet',
          mean: [...IMAGENET_MEAN],
          std: [...IMAGENET_STD],
          decoder: 'fast-png',
        } as Parameters<typeof runPanelPlan>[1]['input'],
        env: cellEnv(report),
        onCellStart(ref, n, total) {
          emit({ kind: 'stage', text: `Training ${ref.method} (${n + 1} of ${total})…` });
        },
        async onCell(cell, ref) {
          await store.putModalCell({ runId: stored.id, key: panelCellKey(ref), result: cell });
          doneCells.push(cell);
          emit({ kind: 'cell', cell, done: doneCells.length, total: all.length });
        },
        tick,
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

const cellKeyOf = (c: ModalCellResult) =>
  panelCellKey({
    dataset: c.dataset.id as PanelPlan['datasets'][number],
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
  async keepWeights(bytes: Uint8Array): Promise<string> {
    const key = `weights:${await sha256Hex(bytes)}`;
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
