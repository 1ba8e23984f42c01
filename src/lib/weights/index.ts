/** Weights and tokenizers for the image and text tiers (PROTOCOL-IMAGE-TEXT.md §4.5). */
export * from './safetensors.ts';
export * from './halfFloat.ts';
export * from './weightMap.ts';
export * from './hash.ts';
export * from './tokenizer.ts';
export * from './loader.ts';
