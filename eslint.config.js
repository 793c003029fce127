// `npm run lint`: ESLint with typescript-eslint's type-aware rules (they read the types through
// tsconfig.json), chosen for the bugs they catch in an async server; formatting is left alone.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'clients/typescript/dist/', 'coverage/', 'node_modules/', 'data/', 'bench/out/'] },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection; `void` marks the deliberate ones.
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      // `return await` inside try, so the catch and finally see the rejection.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // A new error code or fuel left out of a switch over a union is a compile-time hole.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // An async function without await is deliberate here: it implements a Promise-returning
      // interface (PriceStore, Fastify plugins and hooks) and turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // House style: no non-null `!` without a reason, given in an eslint-disable comment.
      '@typescript-eslint/no-non-null-assertion': 'error',
      // A variable assigned once, after a closure that reads it is made (a logger known only once the app exists), stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The same convention as tsc's noUnusedParameters: a leading `_` marks an unused one.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
