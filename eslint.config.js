// ESLint flat config: typescript-eslint's type-aware recommended rules over src/ and test/,
// plus the few habits the project keeps (type-only imports, no floating promises, no unused).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', 'coverage/**'] },
  {
    files: ['**/*.{js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // A spread into a call's arguments puts every element on the stack: past ~100 k (a long time
    // series) Math.max(...xs) or out.push(...xs) throws "Maximum call stack size exceeded".
    // maxOf, minOf and appendAll (src/numbers.ts) loop instead.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Math'] > SpreadElement",
          message: 'Spreading an array into Math.* overflows the stack on long arrays; use maxOf/minOf from src/numbers.ts.',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(push|unshift)$/] > SpreadElement',
          message: 'Spreading an array into push/unshift overflows the stack on long arrays; use appendAll from src/numbers.ts.',
        },
        {
          selector: "CallExpression[callee.property.name='fromCharCode'] > SpreadElement",
          message: 'Spreading an array into fromCharCode overflows the stack on long arrays; decode with Buffer or TextDecoder.',
        },
      ],
    },
  },
  {
    // Tests read JSON documents (results, CLI output) and poke at them: typing every parsed value would
    // only restate the schema, so the no-unsafe-* family is off there; the rest of the rules stay.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
