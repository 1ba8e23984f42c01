/** A registry backbone (registry.ts) built from its parsed weights. */
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import { tinyConvNet, type Backbone } from './backbone.ts';
import { minilmBackbone } from './minilm.ts';
import { mobilenetV3Backbone } from './mobilenetv3.ts';
import { resnetBackbone, resnetConfigOf } from './resnet.ts';
import { backboneEntry, type BackboneEntry } from './registry.ts';
import { robertaBackbone } from './roberta.ts';

/**
 * `imageSize`: the side images enter at (CIFAR 32, photos 224); text backbones take entry.maxLength
 * tokens. The backbone's feature is the entry's (what records and bank keys name), whatever width
 * the weights give it.
 */
export function buildBackbone(id: string, file: SafetensorsFile, imageSize: number): Backbone {
  const entry = backboneEntry(id);
  return { ...build(entry, file, imageSize), feature: entry.feature };
}

function build(entry: BackboneEntry, file: SafetensorsFile, imageSize: number): Backbone {
  switch (entry.id) {
    case 'tiny-conv':
      return tinyConvNet(file, imageSize);
    case 'resnet50':
      return resnetBackbone(file, imageSize);
    case 'tiny-resnet':
      return resnetBackbone(file, imageSize, resnetConfigOf(file));
    case 'mnv3-small':
      return mobilenetV3Backbone(file, imageSize);
    case 'tiny-roberta':
    case 'roberta-base':
      return robertaBackbone(file, { seqLength: entry.maxLength, config: { heads: entry.heads ?? 12 } });
    case 'minilm-l6':
      return minilmBackbone(file, { seqLength: entry.maxLength, config: { heads: entry.heads ?? 12 } });
    default:
      throw new Error(`${entry.title}: its network is not built yet.`);
  }
}
