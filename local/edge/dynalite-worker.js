// Runs dynalite on its own thread (plain JS: worker threads load it without a TypeScript loader). It listens on an
// ephemeral loopback port and tells the parent which; the edge forwards DynamoDB requests to it. With a `path` (the
// data folder's tables) it keeps the tables in LevelDB there, every write synced before DynamoDB's answer.
const { parentPort, workerData } = require('node:worker_threads');
const dynalite = require('dynalite');

const path = workerData && workerData.path;
if (path) {
  // LevelDB writes without sync by default: a kill keeps them (they reached the kernel), a power cut may not.
  // Syncing each write makes an acknowledged DynamoDB write as durable as the journals beside it.
  const { ClassicLevel } = require('classic-level');
  const synced = (options) => ({ ...options, sync: true });
  const { _put, _del, _batch } = ClassicLevel.prototype;
  ClassicLevel.prototype._put = function (key, value, options) { return _put.call(this, key, value, synced(options)); };
  ClassicLevel.prototype._del = function (key, options) { return _del.call(this, key, synced(options)); };
  ClassicLevel.prototype._batch = function (operations, options) { return _batch.call(this, operations, synced(options)); };
}

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path ? { path } : {}) });
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  // Keep-alive clients (the SDK's) would hold the close open: their idle sockets are ended, then LevelDB is closed.
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
