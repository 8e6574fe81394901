// Runs dynalite on its own thread (plain JS: worker threads load it without a TypeScript loader). It listens on an
// ephemeral loopback port and tells the parent which; the edge forwards DynamoDB requests to it. With a `path` (the
// data folder's tables) it keeps the tables in LevelDB there, every write synced before DynamoDB's answer (writes that
// arrive during a flush are synced together in the next one).
const { parentPort, workerData } = require('node:worker_threads');

const path = workerData && workerData.path;
if (!path) {
  // In memory (tests, the bench), dynalite's store keeps keys and values as Buffers: every lookup compares keys byte by
  // byte in JavaScript (their long common prefix, `item-<table>~<hash>/`, again and again), and every read and write
  // converts JSON text to and from bytes. Kept as strings instead, keys compare natively, in the same order (dynalite's
  // keys are ASCII: hex, digits, names), and JSON is parsed from the string. Set before dynalite takes the class.
  const memoryLevel = require('memory-level');
  const { MemoryLevel } = memoryLevel;
  memoryLevel.MemoryLevel = class StringMemoryLevel extends MemoryLevel {
    constructor(location, options) {
      if (typeof location === 'object' && location !== null) super({ storeEncoding: 'utf8', ...location });
      else super(location, { storeEncoding: 'utf8', ...options });
    }
  };
}
const dynalite = require('dynalite');

if (path) {
  // LevelDB writes without sync by default: a kill keeps them (they reached the kernel), a power cut may not.
  // Syncing each write makes an acknowledged DynamoDB write as durable as the journals beside it.
  // Each write also puts its number in the same batch (see tables-check.ts), and once it is on disk the number goes to
  // the tables' seal (`<tables>.seal`, rewritten in place): a start whose tables hold less than the seal says is refused.
  const { ClassicLevel } = require('classic-level');
  const { closeSync, openSync, readFileSync, renameSync, writeSync } = require('node:fs');
  const { crc32 } = require('node:zlib');
  const PREFIX = '\u0001holdback~written~';
  const SLOTS = 4096;
  const sealPath = `${path}.seal`;
  // The seal's format is durable-file.ts's sealLine (this file is plain JS, loaded without a TypeScript loader).
  const sealLine = (n) => {
    const text = `written ${n}`;
    return `${`${text} ${crc32(text).toString(16).padStart(8, '0')}`.padEnd(39, ' ')}\n`;
  };
  let last = 0;
  try {
    last = Number(/^written (\d+) /.exec(readFileSync(sealPath, 'utf8'))[1]);
  } catch {
    const temp = `${sealPath}.tmp`;
    const fd = openSync(temp, 'w');
    writeSync(fd, sealLine(0));
    closeSync(fd);
    renameSync(temp, sealPath);
  }
  let sealed = last;
  const seal = openSync(sealPath, 'r+');
  const written = (n) => {
    if (n <= sealed) return;
    sealed = n;
    writeSync(seal, sealLine(n), 0);
  };
  const numbered = (operations) => {
    const n = ++last;
    return { n, operations: [...operations, { type: 'put', key: `${PREFIX}${String(n % SLOTS).padStart(4, '0')}`, value: String(n) }] };
  };
  // Reads are answered on this thread (LevelDB's own get, from its block cache or the OS's page cache: microseconds)
  // instead of each being queued to libuv's pool: a queued get took a snapshot under LevelDB's mutex here, two thread
  // hand-offs and a promise, and the profile of a data-folder run had this thread waiting in it 37% of its busy time.
  ClassicLevel.prototype._get = function (key, options) {
    try {
      return Promise.resolve(this._getSync(key, options));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const { _batch } = ClassicLevel.prototype;
  // Writes that arrive during a flush are synced together in the next one (group-commit.js); each batch is numbered.
  const write = require('./group-commit').groupCommit((db, operations, options) => {
    const { n, operations: all } = numbered(operations);
    return _batch.call(db, all, { ...options, sync: true }).then(() => written(n));
  });
  ClassicLevel.prototype._put = function (key, value, options) { return write(this, [{ type: 'put', key, value }], options); };
  ClassicLevel.prototype._del = function (key, options) { return write(this, [{ type: 'del', key }], options); };
  ClassicLevel.prototype._batch = function (operations, options) { return write(this, operations, options); };
}

// dynalite writes an item's index entries, then the item, as separate LevelDB writes: a kill between them leaves an
// index entry whose item never landed (or the reverse). Its sub-databases are key prefixes of one LevelDB, so the
// index entries are held back and written with the item in ONE batch: a kill leaves both or neither.
const dynaliteDb = require('dynalite/db');
const heldIndexWrites = new Map();
const heldKey = (tableName, key) => `${tableName}\u0000${key}`;
// dynalite's putItem, updateItem and deleteItem write the item from updateIndexes' callback, at once: the index writes
// are handed to that write directly (no key to make: an MD5 and a hex encoding of the item's key each time). Should a
// version of dynalite write later, they are held by the item's key instead, as before.
let handedOver = null;
dynaliteDb.updateIndexes = function (store, table, existingItem, item, cb) {
  if (!existingItem && !item) return cb();
  const deletes = [];
  const puts = [];
  for (const indexType of ['Local', 'Global']) {
    const actions = dynaliteDb.getIndexActions(table[`${indexType}SecondaryIndexes`] || [], existingItem, item, table);
    const prefix = (index) => `index-${indexType.toLowerCase()}~${table.TableName}~${index}~`;
    for (const action of actions.deletes) deletes.push({ type: 'del', key: prefix(action.index) + action.key });
    for (const action of actions.puts) puts.push({ type: 'put', key: prefix(action.index) + action.key, value: action.item });
  }
  handedOver = { tableName: table.TableName, operations: [...deletes, ...puts] };
  try {
    cb();
  } finally {
    // Not taken: the item's lock is held from here to its put or delete, so no other write of the key comes in between.
    if (handedOver !== null) heldIndexWrites.set(heldKey(table.TableName, dynaliteDb.createKey(item || existingItem, table)), handedOver.operations);
    handedOver = null;
  }
};
const createStore = dynaliteDb.create;
let theStore = null;
dynaliteDb.create = function (options) {
  const store = createStore(options);
  theStore = store;
  const getItemDb = store.getItemDb;
  const wrapped = new Map();
  store.getItemDb = function (name) {
    const itemDb = getItemDb(name);
    if (!wrapped.has(itemDb)) {
      const prefix = `item-${name}~`;
      const withIndexes = (key, operation, callback) => {
        let held;
        if (handedOver !== null && handedOver.tableName === name) {
          held = handedOver.operations;
          handedOver = null;
        } else {
          held = heldIndexWrites.get(heldKey(name, key)) || [];
          heldIndexWrites.delete(heldKey(name, key));
        }
        store.db.batch([...held, { ...operation, key: prefix + key }], callback);
      };
      wrapped.set(itemDb, Object.assign(Object.create(itemDb), {
        put: (key, value, callback) => withIndexes(key, { type: 'put', value }, callback),
        del: (key, callback) => withIndexes(key, { type: 'del' }, callback),
      }));
    }
    return wrapped.get(itemDb);
  };
  return store;
};

// An index's entries are queried a batch at a time (see dynalite-query.js).
require('./dynalite-query')();

// Each expression is parsed once, not at every request (see dynalite-expressions.js).
require('./dynalite-expressions')();
// Each request's types checked with descriptors made once (see dynalite-types.js).
require('./dynalite-types').install();
// Request ids from a pool of random bytes, the answers' checksums native (see dynalite-request-path.js).
require('./dynalite-request-path')();

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path ? { path } : {}) });
server.keepAliveTimeout = 60_000;

// On AWS the API's calls never wait behind a job's: DynamoDB serves each partition on its own. Here one thread serves
// every caller, in turn, so a job's steps (32 calls in flight) would make each of the API's calls wait behind all of
// theirs. The API's calls (marked by the runtime, PRIORITY_HEADER) go straight in; everyone else's (the functions'
// containers, the edge) at most BACKGROUND_IN_FLIGHT at once, the rest in arrival order: the thread stays as busy, and
// an API call waits behind a few calls instead of dozens. The header's name is local/edge/dynamodb.ts's.
const PRIORITY_HEADER = 'x-holdback-local-priority';
const BACKGROUND_IN_FLIGHT = Number(workerData && workerData.backgroundInFlight) || 6;
const [serve] = server.listeners('request');
server.removeAllListeners('request');
const waiting = [];
let inFlight = 0;
const next = () => {
  while (inFlight < BACKGROUND_IN_FLIGHT && waiting.length > 0) admit(...waiting.shift());
};
function admit(req, res) {
  inFlight += 1;
  let done = false;
  const finished = () => {
    if (done) return;
    done = true;
    inFlight -= 1;
    next();
  };
  res.once('finish', finished);
  res.once('close', finished);
  serve(req, res);
}
function onRequest(req, res) {
  if (req.headers[PRIORITY_HEADER] === 'api') return serve(req, res);
  if (inFlight < BACKGROUND_IN_FLIGHT) return admit(req, res);
  waiting.push([req, res]);
}
server.on('request', onRequest);
// The local Lambda containers' requests come over a MessagePort each (see dynalite-channel.js), into the same queue.
const { serveChannel } = require('./dynalite-channel');

// dynalite keeps a new table CREATING for a moment and makes it ACTIVE with a timer: a kill in that moment leaves it
// CREATING on disk for ever, and every later start would wait for it. No write can have reached a table before it was
// ACTIVE (Holdback writes only after every table is), so a table or index found in any other state at the start is
// finished here: made ACTIVE, as the timer would have.
function finishInterruptedTables(done) {
  if (!path) return done();
  dynaliteDb.lazy(theStore.tableDb.createKeyStream(), done).join((names) => {
    let left = names.length;
    if (left === 0) return done();
    const next = () => { left -= 1; if (left === 0) done(); };
    for (const name of names) {
      theStore.getTable(name, false, (error, table) => {
        if (error || !table || typeof table !== 'object') return next();
        const indexes = [...(table.GlobalSecondaryIndexes || []), ...(table.LocalSecondaryIndexes || [])];
        if (table.TableStatus === 'ACTIVE' && indexes.every((index) => !index.IndexStatus || index.IndexStatus === 'ACTIVE')) return next();
        table.TableStatus = 'ACTIVE';
        for (const index of indexes) if (index.IndexStatus) index.IndexStatus = 'ACTIVE';
        theStore.tableDb.put(name, table, next);
      });
    }
  });
}

// Idle kept-alive connections stay ten minutes (local/edge/keep-alive.ts says why: Node's 5 s default races the SDK's
// reuse of an idle socket into ECONNRESET under load).
server.keepAliveTimeout = 600000;
finishInterruptedTables(() => server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port })));
parentPort.on('message', (message) => {
  if (message && message.kind === 'channel') return serveChannel(message.port, onRequest);
  if (message !== 'close') return;
  // Keep-alive clients (the SDK's) would hold the close open: their idle sockets are ended, then LevelDB is closed.
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
