/** A registry backbone (registry.ts) built from its parsed weights. */
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import { tinyConvNet, type Backbone } from './backbone.ts';
import { backboneEntry } from './registry.ts';

export function buildBackbone(id: string, file: SafetensorsFile, imageSize: number): Backbone {
  const entry = backboneEntry(id);
  switch (entry.id) {
    case 'tiny-conv':
      return tinyConvNet(file, imageSize);
    default:
      throw new Error(`${entry.title}: its network is not built yet.`);
  }
}
