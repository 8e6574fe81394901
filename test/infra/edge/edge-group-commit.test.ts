/**
 * The local DynamoDB's group commit (local/edge/group-commit.js): writes that arrive while a synced batch is being
 * flushed go together in the next batch, and none is answered before the batch that holds it is on disk.
 */
const { groupCommit } = require('../../../local/edge/group-commit') as {
  groupCommit: (flush: (db: object, operations: unknown[], options: unknown) => Promise<void>) => (db: object, operations: unknown[], options?: unknown) => Promise<void>;
};

/** A disk whose flushes end when the test says: each flush's operations, and the means to end it. */
function scriptedDisk() {
  const flushes: { operations: unknown[]; options: unknown; end: (error?: Error) => void }[] = [];
  const flush = (_db: object, operations: unknown[], options: unknown) => new Promise<void>((resolve, reject) => {
    flushes.push({ operations: [...operations], options, end: (error) => (error ? reject(error) : resolve()) });
  });
  return { flushes, write: groupCommit(flush) };
}

const settled = async (promise: Promise<void>): Promise<'answered' | 'waiting' | 'refused'> => {
  let state: 'answered' | 'waiting' | 'refused' = 'waiting';
  promise.then(() => { state = 'answered'; }, () => { state = 'refused'; });
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  return state;
};

const put = (key: string) => ({ type: 'put', key, value: key });
const UTF8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' };

test('writes that arrive during a flush go together in the next one, each answered only when its own batch is on disk', async () => {
  const { flushes, write } = scriptedDisk();
  const db = {};
  const first = write(db, [put('a')], UTF8);
  await settled(first);
  expect(flushes.map((f) => f.operations)).toEqual([[put('a')]]);
  // Three writes while the first batch is flushed: they wait, none of them flushed yet.
  const later = [write(db, [put('b')], UTF8), write(db, [put('c'), put('d')], UTF8), write(db, [put('e')], UTF8)];
  expect(await Promise.all(later.map(settled))).toEqual(['waiting', 'waiting', 'waiting']);
  expect(flushes).toHaveLength(1);
  flushes[0].end();
  expect(await settled(first)).toBe('answered');
  // The next flush holds all three, in arrival order; they are answered only once it ends.
  expect(flushes.map((f) => f.operations)).toEqual([[put('a')], [put('b'), put('c'), put('d'), put('e')]]);
  expect(await Promise.all(later.map(settled))).toEqual(['waiting', 'waiting', 'waiting']);
  flushes[1].end();
  expect(await Promise.all(later.map(settled))).toEqual(['answered', 'answered', 'answered']);
});

test('a failed flush refuses every write of its batch and none of the next; other encodings and other databases are never mixed in', async () => {
  const { flushes, write } = scriptedDisk();
  const db = {};
  const other = {};
  const first = write(db, [put('a')], UTF8);
  await settled(first);
  const grouped = [write(db, [put('b')], UTF8), write(db, [put('c')], UTF8)];
  const buffers = write(db, [put('x')], { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const elsewhere = write(other, [put('z')], UTF8);
  await settled(elsewhere);
  // The other database flushes on its own, at once.
  expect(flushes.map((f) => f.operations)).toEqual([[put('a')], [put('z')]]);
  flushes[0].end(new Error('disk full'));
  expect(await settled(first)).toBe('refused');
  expect(flushes[2].operations).toEqual([put('b'), put('c')]);
  flushes[2].end(new Error('disk full'));
  expect(await Promise.all(grouped.map(settled))).toEqual(['refused', 'refused']);
  // The buffers' write went in a batch of its own, with its own encodings, after the failed one.
  expect(flushes[3]).toMatchObject({ operations: [put('x')], options: { keyEncoding: 'buffer', valueEncoding: 'buffer' } });
  flushes[3].end();
  flushes[1].end();
  expect(await settled(buffers)).toBe('answered');
  expect(await settled(elsewhere)).toBe('answered');
});
