// ESLint flat config: typescript-eslint on every .ts file, eslint-plugin-svelte on components.
// Formatting is Prettier's job (npm run format:check); these rules catch bugs, not style.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import svelteConfig from './svelte.config.js';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.cache/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
      'bench-results/',
      '.device/',
      'device-out/',
      'public/',
      'tests/fixtures/',
      '**/*.py',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.worker } },
    rules: {
      // `_name` marks an intentionally unused argument (estimator contracts, callbacks).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
      // Scratch Maps, Sets, Dates and URLs inside functions are not state; app state is $state.raw,
      // replaced whole (STYLE.md §9), so the Svelte* reactive collections are not wanted here.
      'svelte/prefer-svelte-reactivity': 'off',
    },
  },
  {
    // The core is pure: no clock, no global randomness (seeded RNG only; PROTOCOL §3).
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use the seeded RNG (src/lib/protocol/rng.ts).' },
        { object: 'Date', property: 'now', message: 'The core has no clock: take times from the caller.' },
        {
          object: 'performance',
          property: 'now',
          message: 'The core has no clock: take times from the caller.',
        },
      ],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts', '**/*.svelte.js'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        extraFileExtensions: ['.svelte'],
        parser: tseslint.parser,
        svelteConfig,
      },
    },
  },
);
