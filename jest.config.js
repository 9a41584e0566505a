/** ESM all the way: ts-jest compiles TypeScript as ES modules and Node runs them with --experimental-vm-modules. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // One test file at a time: the load tests measure timing, and two of them sharing two cores (with
  // their simulators) would measure each other.
  maxWorkers: 1,
};
