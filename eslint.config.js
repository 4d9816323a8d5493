// ESLint for the TypeScript of the app and its tests: typescript-eslint's strict rules with
// type information, over the TypeScript only (the few .mjs scripts are Node tools).
// Generated and built files are left out.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'web/pkg/',
      'web/pkg-*/',
      'web/src/core/generated/',
      'crates/',
      'bench/out/',
      'test-results/',
      'playwright-report/',
      'public/',
      '.tools/',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Block numbers, offsets and counts are the app's everyday text: `block ${n}`.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // React's `onClick={() => setOpen(false)}`: an arrow whose body is a void call.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Reads by index are checked (`rows[i] ?? fallback`) though the tsconfig, without
      // noUncheckedIndexedAccess, types them as always there: the rule would remove the checks.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Props are declared in method shorthand (`onClose(): void`) and passed as arrows by the
      // parent; calling them unbound (`p.onClose`) is how the components use them.
      '@typescript-eslint/unbound-method': 'off',
      // `x!` after a check a closure cannot see (TypeScript drops the narrowing inside it) or
      // on a ref filled once the bindings load; each is an assertion of a fact checked nearby.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `_`: left out on purpose (a destructured field dropped, an argument a callback must take).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // A test's `x!` fails the test, loudly, when x is missing: the assertion it means.
    files: ['**/*.test.ts', '**/*.test.tsx', 'tests/**'],
    rules: {
      // Fixtures' expected.json and the server's answers are read as JSON whose shape the
      // test's assertions check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
