// Group commit for the local DynamoDB's LevelDB (plain JS: dynalite-worker.js loads it without a TypeScript loader).
// A synced write costs a disk flush, so writes that arrive while one is being flushed wait and go together in the next
// synced batch, each answered only once that batch is on disk: a batch is all or nothing, so a kill keeps every write
// of it or none, and none of them was answered before. Writes join a waiting group only with the same encodings, which
// LevelDB applies to a whole batch; each database has its own groups.

/**
 * `flushBatch(db, operations, options)` writes one synced batch and resolves once it is on disk. Answers
 * `write(db, operations, options)`, which resolves once the operations are on disk, in a batch with any others that
 * arrived while an earlier batch of `db` was being flushed.
 */
function groupCommit(flushBatch) {
  const states = new WeakMap();
  const stateOf = (db) => {
    let state = states.get(db);
    if (!state) {
      state = { groups: [], flushing: false };
      states.set(db, state);
    }
    return state;
  };
  const encodingsOf = (options) => `${options && options.keyEncoding}\u0000${options && options.valueEncoding}`;
  const flush = (db, state) => {
    if (state.flushing || state.groups.length === 0) return;
    state.flushing = true;
    const group = state.groups.shift();
    Promise.resolve()
      .then(() => flushBatch(db, group.operations, group.options))
      .then(
        () => { for (const waiter of group.waiters) waiter.resolve(); },
        (error) => { for (const waiter of group.waiters) waiter.reject(error); },
      )
      .finally(() => {
        state.flushing = false;
        flush(db, state);
      });
  };
  return (db, operations, options) => new Promise((resolve, reject) => {
    const state = stateOf(db);
    const encodings = encodingsOf(options);
    const last = state.groups[state.groups.length - 1];
    let group = last && last.encodings === encodings ? last : null;
    if (!group) {
      group = { encodings, options, operations: [], waiters: [] };
      state.groups.push(group);
    }
    for (const operation of operations) group.operations.push(operation);
    group.waiters.push({ resolve, reject });
    flush(db, state);
  });
}

module.exports = { groupCommit };
