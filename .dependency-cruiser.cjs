/**
 * Import rules (npm run lint:deps). The core (src/lib) is pure and knows nothing of the UI;
 * models know nothing of plans; the CLI is Node-only and the page never imports it.
 */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment:
        'src/lib is the pure core: it must not import UI state, components, pages, workers or the CLI.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^(src/(state|ui|pages|cli)/|src/App\\.svelte|workers/)' },
    },
    {
      name: 'models-know-no-plans',
      comment: 'Estimators and the catalogue must not depend on the suite (plans, runs, presets).',
      severity: 'error',
      from: { path: '^src/lib/models/' },
      to: { path: '^src/lib/suite/' },
    },
    {
      name: 'page-never-imports-cli',
      comment: 'The CLI is Node-only (fs, process); the site must not bundle it.',
      severity: 'error',
      from: { path: '^(src/(state|ui|pages|lib)/|workers/)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make load order fragile (workers load modules lazily).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.svelte', '.mjs'] },
  },
};
