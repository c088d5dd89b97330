import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** A core folder's own modules, as seen from outside src/core (see the rule below). */
const CORE_INTERNALS = [
  '**/core/*/*.ts',
  '!**/core/*/index.ts',
  '!**/core/embed/use.ts',
  '!**/core/embed/transformers.ts',
  '!**/core/embed/openai.ts',
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'public/', 'test/fixtures/', '.cache/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    // Outside src/core, a core folder is used through its index.ts (its public API). The model runtimes and the
    // endpoint embedder are the exception: they are loaded by path, lazily, so that importing a folder's API never
    // pulls TF.js or transformers.js into a bundle that does not embed.
    files: ['src/cli/**/*.ts', 'src/ui/**/*.ts', 'src/ui/**/*.svelte', 'workers/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...CORE_INTERNALS] }],
    },
  },
  {
    // The services are shared by the workers and the CLI: they never reach into the page, the CLI or the workers
    // (a worker only exposes a service; its API type is derived beside the service).
    files: ['src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...CORE_INTERNALS, '**/ui/**', '**/cli/**', '**/workers/**'] },
      ],
    },
  },
  {
    // The store is the only layer that knows Dexie; it serves the services, the page and the CLI, never the
    // other way round.
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...CORE_INTERNALS, '**/services/**', '**/ui/**', '**/cli/**', '**/workers/**'] },
      ],
    },
  },
  {
    // src/core must stay pure: no DOM, no IndexedDB, no storage layer; one core folder uses another through its
    // index.ts.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'dexie',
            '**/store/**',
            '**/ui/**',
            'fake-indexeddb',
            'node:*',
            'fs',
            'path',
            '../*/*.ts',
            '!../*/index.ts',
            './*/*.ts',
            '!./*/index.ts',
          ],
        },
      ],
      'no-restricted-globals': ['error', 'document', 'window', 'indexedDB', 'localStorage'],
    },
  },
);
