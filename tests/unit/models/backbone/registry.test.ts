/**
 * The backbone registry (models/backbone/registry.ts) against the record schema: every entry's
 * feature is one the /3 schema knows, of the entry's modality, and its tiers are the feature's; text
 * entries name their length and pad word. build.ts makes an entry from its weights with the
 * entry's feature (what bank keys and records name), whatever width the weights give.
 */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBackbone } from '../../../../src/lib/models/backbone/build.ts';
import { BACKBONES, backboneByFeature } from '../../../../src/lib/models/backbone/registry.ts';
import { BACKBONE_FEATURES } from '../../../../src/lib/suite/schemaV3.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';

describe('backbone registry', () => {
  it('names only features the record schema knows, of its modality and tiers', () => {
    for (const b of Object.values(BACKBONES)) {
      const f = BACKBONE_FEATURES[b.feature];
      expect(f, b.id).toBeDefined();
      expect(f.modality, b.id).toBe(b.modality);
      for (const tier of b.tiers) expect(f.tiers as readonly string[], b.id).toContain(tier);
      if (b.modality === 'text') {
        expect(b.maxLength, b.id).toBeGreaterThan(0);
        expect(['<pad>', '[PAD]'], b.id).toContain(b.padWord);
      }
      expect(backboneByFeature(b.feature).id).toBe(b.id);
    }
    expect(() => backboneByFeature('r18-gap-512')).toThrow(/No backbone gives the feature "r18-gap-512"/);
  });

  it("builds an entry from its weights with the entry's feature", () => {
    const file = parseSafetensors(readFileSync('tests/fixtures/encoders/roberta-tiny.safetensors'));
    const before = tf.memory().numTensors;
    const b = buildBackbone('tiny-roberta', file, 32);
    expect(b.feature).toBe('tiny-roberta-s');
    expect(b.dim).toBe(32);
    expect(b.inputShape).toEqual([2, 32]);
    b.dispose();
    expect(tf.memory().numTensors).toBe(before);
    expect(() => buildBackbone('resnet152', file, 32)).toThrow(/Unknown backbone "resnet152"/);
  });
});
