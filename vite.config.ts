import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { CSP_META, headersFile, SECURITY_HEADERS } from './src/lib/env/csp.ts';

/**
 * The Content-Security-Policy (src/lib/env/csp.ts) in the build: a meta tag in index.html and a
 * `_headers` file for static hosts; `vite preview` sends the same headers, so the browser tests
 * run under the policy, workers included. Not in `vite dev` (its HMR client injects styles).
 */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'rac-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP_META },
        injectTo: 'head-prepend',
      },
    ],
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: headersFile() });
    },
  };
}

function previewHeaders(): Plugin {
  return {
    name: 'rac-preview-headers',
    configurePreviewServer(server) {
      server.middlewares.use((_req, res, next) => {
        for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
        next();
      });
    },
  };
}

// A static site: `npm run build` gives dist/, which any static host serves.
// No COOP/COEP headers on purpose: threaded tfjs-wasm hangs after minification
// (tensorflow/tfjs#4539), and single-threaded SIMD is as fast on small machines.
export default defineConfig({
  base: './',
  plugins: [svelte(), contentSecurityPolicy(), previewHeaders()],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096, sourcemap: false },
  server: { port: 5173 },
  preview: { port: 4173 },
});
