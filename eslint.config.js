// ESLint flat config: typescript-eslint's type-aware recommended rules over src/ and test/,
// plus the few habits the project keeps (type-only imports, no floating promises, no unused).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A spread into a call's arguments puts every element on the stack: past ~100 k (a long time
// series) Math.max(...xs) or out.push(...xs) throws "Maximum call stack size exceeded".
// maxOf, minOf and appendAll (src/numbers.ts) loop instead.
const NO_SPREAD_ARGUMENTS = [
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
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', 'coverage/**', 'src/spec/validators.generated.cjs'] },
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
    // A function fits on a screen: past about 80 lines it is doing several things, each of which
    // deserves a name. A long function that really is clearer whole is exempted on the line above
    // it, with its reason. Tests are not limited: a describe() block is a list of cases rather than
    // a function doing several things, and splitting one would only scatter the cases of one
    // subject over several blocks.
    files: ['src/**/*.ts', 'scripts/**/*.{js,mjs}', 'bin/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // No spread into call arguments (NO_SPREAD_ARGUMENTS above).
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...NO_SPREAD_ARGUMENTS] },
  },
  {
    // The Action's log lines go through src/action/log.ts, which makes every line safe
    // (escapeLogLine): a spec name or server text written with core.info could carry a
    // workflow command into the runner's log.
    files: ['src/action/**/*.ts'],
    ignores: ['src/action/log.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...NO_SPREAD_ARGUMENTS,
        {
          selector: "CallExpression[callee.object.name='core'][callee.property.name=/^(info|notice|warning|error|setFailed|debug)$/]",
          message: 'Write the Action log through src/action/log.ts, which neutralises workflow commands in every line.',
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
