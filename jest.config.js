// Tests are TypeScript ESM (the project is ESM because @kubernetes/client-node is ESM-only).
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/server/**/*.test.ts', '<rootDir>/harness/**/*.test.ts', '<rootDir>/certs/**/*.test.ts', '<rootDir>/scenarios/**/*.test.ts', '<rootDir>/examples/**/*.test.ts'],
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
