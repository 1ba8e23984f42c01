import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// A static site: `npm run build` gives dist/, which any static host serves.
// No COOP/COEP headers on purpose: threaded tfjs-wasm hangs after minification
// (tensorflow/tfjs#4539), and single-threaded SIMD is as fast on small machines.
export default defineConfig({
  base: './',
  plugins: [svelte()],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096, sourcemap: false },
  server: { port: 5173 },
  preview: { port: 4173 },
});
