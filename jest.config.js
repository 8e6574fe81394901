/** Jest: TypeScript through ts-jest (type checking is `tsc --noEmit` in `npm test`); middy is ESM-only, so it is transformed. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/setup-env.js'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { isolatedModules: true, allowJs: true, module: 'commonjs', esModuleInterop: true, resolveJsonModule: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|canonicalize)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
