// dynalite's Query of an index reads its entries one at a time: a promise, a stream push and a lazy-stream event per
// entry, then JSON text of the whole page made and checksummed in JavaScript. A preview reads a vendor's planning index
// whole (100,000 entries, about 60 pages of 1 MB), and that machinery was a sixth of dynalite's time. Here an index
// query (its entries projected into the index, not fetched again from the table) reads its entries a batch at a time
// from the same store, with the same bounds, the same page end (Limit, or 1 MB by dynalite's own item size), the same
// filters, projection, LastEvaluatedKey and consumed capacity as dynalite's queryTable; any other query (the table, or
// an index whose projection needs the table's items) stays dynalite's own. Plain JS: see dynalite-worker.js.

/** Entries taken from the store's iterator at a time. */
const BATCH = 256;
/** DynamoDB's (and dynalite's) page bound: an answer stops once its items reach 1 MB. */
const PAGE_BYTES = 1024 * 1024;

/** The store's range options of a sub-database (`prefix`), as dynalite's prefixed wrapper makes them. */
function prefixed(options, prefix) {
  const all = { ...options };
  if (all.gte) all.gte = prefix + all.gte;
  else if (all.gt) all.gt = prefix + all.gt;
  else all.gte = prefix;
  if (all.lte) all.lte = prefix + all.lte;
  else if (all.lt) all.lt = prefix + all.lt;
  else all.lt = `${prefix}\xFF`;
  return all;
}

module.exports = function batchedIndexQueries() {
  const db = require('dynalite/db');
  const queryTable = db.queryTable;

  db.queryTable = function batchedQueryTable(store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb) {
    if (!data.IndexName || fetchFromItemDb || typeof store.db.values !== 'function') {
      return queryTable(store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb);
    }
    const prefix = `index-${isLocal ? 'local' : 'global'}~${data.TableName}~${data.IndexName}~`;
    const iterator = store.db.values(prefixed(opts, prefix));
    const calculateCapacity = ['TOTAL', 'INDEXES'].includes(data.ReturnConsumedCapacity);
    const rangeKey = table.KeySchema[1] && table.KeySchema[1].AttributeName;
    const items = [];
    let size = 0;
    let count = 0;
    let indexCapacity = 0;
    let ended = false;
    const full = () => count >= data.Limit || size >= PAGE_BYTES;
    const finish = (error) => {
      if (ended) return;
      ended = true;
      // abstract-level 3 answers with promises only.
      const done = () => (error ? cb(error) : cb(null, answer()));
      iterator.close().then(done, done);
    };
    const answer = () => {
      const lastItem = items[items.length - 1];
      let kept = items;
      const queryFilter = data.QueryFilter || data.ScanFilter;
      if (data._filter) kept = kept.filter((val) => db.matchesExprFilter(val, data._filter.expression));
      else if (queryFilter) kept = kept.filter((val) => db.matchesFilter(val, queryFilter, data.ConditionalOperator));
      const result = { ScannedCount: count };
      if (full()) {
        if (data.Limit) kept.splice(data.Limit);
        if (lastItem) {
          result.LastEvaluatedKey = startKeyNames.reduce((key, attr) => {
            key[attr] = lastItem[attr];
            return key;
          }, {});
        }
      }
      const paths = data._projection ? data._projection.paths : data.AttributesToGet;
      if (paths) kept = kept.map((item) => db.mapPaths(paths, item));
      result.Count = kept.length;
      if (data.Select != 'COUNT') result.Items = kept;
      if (calculateCapacity) {
        // An index read: the table's units are none, as in dynalite's own (its items are not fetched).
        const indexUnits = Math.ceil(indexCapacity / 1024 / 4) * (data.ConsistentRead ? 1 : 0.5);
        result.ConsumedCapacity = { CapacityUnits: indexUnits, TableName: data.TableName };
        if (data.ReturnConsumedCapacity == 'INDEXES') {
          const indexAttr = isLocal ? 'LocalSecondaryIndexes' : 'GlobalSecondaryIndexes';
          result.ConsumedCapacity.Table = { CapacityUnits: 0 };
          result.ConsumedCapacity[indexAttr] = { [data.IndexName]: { CapacityUnits: indexUnits } };
        }
      }
      return result;
    };
    const next = () => iterator.nextv(BATCH).then((values) => {
      for (const val of values) {
        if (full()) return finish();
        if (calculateCapacity) indexCapacity += db.itemSize(val);
        count += 1;
        size += db.itemSize(val, true, true, rangeKey);
        items.push(val);
      }
      // The end of the range is an empty batch (a store may answer fewer than asked before it).
      if (values.length === 0 || full()) return finish();
      next();
    }, finish);
    next();
  };
};
