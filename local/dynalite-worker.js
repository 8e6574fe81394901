// Runs dynalite on its own thread (plain JS: worker threads load it without a TypeScript loader). It listens on an
// ephemeral loopback port and tells the parent which; the edge forwards DynamoDB requests to it.
const { parentPort } = require('node:worker_threads');
const dynalite = require('dynalite');

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => process.exit(0));
});
