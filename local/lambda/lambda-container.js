// Starts a Lambda container on a worker thread. Under tsx the thread inherits its loader; elsewhere (jest runs the
// runtime through ts-jest, which threads do not get) tsx is registered here, as bin/holdback.js does.
if (!process.execArgv.some((arg) => arg.includes('tsx'))) require('tsx/cjs');
require('./lambda-container.ts');
