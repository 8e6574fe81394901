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
  setupFilesAfterEnv: ['<rootDir>/test/setup-instants.ts'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { isolatedModules: true, allowJs: true, module: 'commonjs', esModuleInterop: true, resolveJsonModule: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
  // "A worker process has failed to exit gracefully" came from no open handle: at the end of the whole suite each
  // worker held only its stdout and stderr (checked for every test file, timers, sockets, child processes and worker
  // threads included). It came from the workers' size: a worker's heap grows file by file (each file loads its own
  // SDK, CDK and luxon) to 300 MB and more (about 1 GB resident), and a process that size takes 0.2 to 0.6 s to end at
  // a load of about 29, past jest's 500 ms, after which jest kills it and warns. So a worker above 300 MB of heap is
  // recycled between files (a fresh one ends in about 10 ms), and the last ones get 2 s to end: a worker that truly
  // leaks a handle never ends, and is still killed and reported.
  workerIdleMemoryLimit: '300MB',
  workerGracefulExitTimeout: 2000,
};
