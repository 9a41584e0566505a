/**
 * ESM all the way: SWC strips the types of each file as an ES module and Node runs them with
 * --experimental-vm-modules. SWC only transpiles (it checks no types): `npm test` runs `tsc` over src/ and test/
 * beside its first pass (scripts/test.mjs --typecheck), so a type error still fails the suite, once, instead of once per file as a type-checking transform did.
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, sourceMaps: 'inline' }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // One test file at a time: the load tests measure timing, and two of them sharing two cores (with
  // their simulators) would measure each other.
  maxWorkers: 1,
};
