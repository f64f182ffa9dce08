/**
 * Jest: five projects; integration and e2e tests share one DynamoDB Local started by the global setup.
 * `e2e-template` runs the HTTP e2e files again against the template-driven local API (the bundles in
 * cdk.out, synthesized by its own global setup when stale), so a bundling or template mistake fails.
 */
const transform = {
  '^.+\\.(t|j)sx?$': [
    '@swc/jest',
    {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    },
  ],
};
const common = {
  transform,
  // Middy 6 and the OpenAPI validator are ESM-only: let swc transform them like our own code.
  transformIgnorePatterns: ['/node_modules/(?!(?:@middy|@seriousme)/)'],
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs', 'mjs'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testEnvironment: 'node',
};

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  // Many tests spawn CLIs or servers, or cold-start functions: on a shared, loaded machine that takes
  // seconds. A bound on waiting, not a timing assertion (speed is measured by npm run bench).
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      // Debug-level logs, captured and scanned for secrets (a leak fails the file).
      setupFiles: [...common.setupFiles, '<rootDir>/test/support/e2e-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'],
    },
    {
      ...common,
      displayName: 'e2e-template',
      globalSetup: '<rootDir>/test/support/synth-setup.ts',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/e2e-template/**/*.test.ts'],
      // The local-server-only /docs page and the tsx `npm start` are not part of the template. (Publishing over
      // the API is: the template server runs the synthesized state machine over the step functions' bundles.)
      testPathIgnorePatterns: ['/test/e2e/docs-page\\.test\\.ts$', '/test/e2e/start\\.test\\.ts$'],
      setupFiles: [
        ...common.setupFiles,
        '<rootDir>/test/support/e2e-env.ts',
        '<rootDir>/test/support/template-env.ts',
      ],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'],
    },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    // README.md and docs/*.md run against npm start's demo (test/docs/examples.test.ts, docs/writing-docs.md).
    { ...common, displayName: 'docs', testMatch: ['<rootDir>/test/docs/**/*.test.ts'] },
  ],
};
