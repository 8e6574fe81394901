/** Jest: TypeScript through ts-jest (type checking is `tsc --noEmit` in `npm test`); middy is ESM-only, so it is transformed. */
// The pinned AWS SDK's notice that its releases after January 2027 need Node 22 (README, and one line at `npm start`)
// is silent in tests. Set here, in the process that starts jest's workers: a test file's process.env is a copy, so
// setting it there (test/setup-env.js) does not reach the worker threads of the local stack (Lambda containers).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/setup-env.js'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { isolatedModules: true, allowJs: true, module: 'commonjs', esModuleInterop: true, resolveJsonModule: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
