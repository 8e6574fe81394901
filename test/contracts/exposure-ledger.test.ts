/**
 * The contract of the ExposureLedger port (contract 6.4), run alike against the in-memory fake and the DynamoDB
 * adapter on a real dynalite: open entries in closing order from a query (never a scan), the conditional version.
 */
import type { ExposureLedger } from '../../functions/application/ports';
import { DynamoExposureLedger } from '../../functions/adapters/dynamodb/exposure-ledger';
import type { ExposureEntry } from '../../functions/domain/exposure';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { InMemoryExposureLedger } from '../fakes/exposure-ledger';
import { at } from '../times';

const SUBJECTS: Subjects<{ ledger: ExposureLedger }> = [
  ['the in-memory fake', inMemory(() => ({ ledger: new InMemoryExposureLedger() }))],
  ['the DynamoDB adapter', onDynalite((local) => ({ ledger: new DynamoExposureLedger(local.doc, local.tables.orders) }))],
];

const entry = (orderId: string, currency: string, amount: string, closesAt: string, vendorId = 'vendor_a'): ExposureEntry => ({
  vendorId, currency, orderId, amount, closesAt: at(closesAt), releasedAt: at('2022-12-02T16:05:00+05:30'),
});

describeEachSubject(SUBJECTS, (subject) => {

  test('open entries: those closing after now, in closing order, of one currency or of every one; other vendors apart', async () => {
    const { ledger } = subject();
    await ledger.put(entry('o3', 'INR', '30.00', '2022-12-05T10:00:00+05:30'));
    await ledger.put(entry('o1', 'INR', '10.00', '2022-12-03T10:00:00+05:30'));
    await ledger.put(entry('o2', 'USD', '20.00', '2022-12-04T04:30:00Z'));
    await ledger.put(entry('o9', 'INR', '99.00', '2022-12-04T10:00:00+05:30', 'vendor_b'));
    expect((await ledger.open('vendor_a', at('2022-12-02T16:05:00+05:30'), 'INR')).map((e) => e.orderId)).toEqual(['o1', 'o3']);
    expect((await ledger.open('vendor_a', at('2022-12-02T16:05:00+05:30'))).map((e) => e.orderId)).toEqual(['o1', 'o3', 'o2']);
    // An entry closing exactly now is closed.
    expect((await ledger.open('vendor_a', at('2022-12-03T10:00:00+05:30'), 'INR')).map((e) => e.orderId)).toEqual(['o3']);
    expect(await ledger.open('vendor_a', at('2022-12-03T10:00:00+05:30'), 'INR')).toEqual([entry('o3', 'INR', '30.00', '2022-12-05T10:00:00+05:30')]);
    await ledger.remove(entry('o3', 'INR', '30.00', '2022-12-05T10:00:00+05:30'));
    expect(await ledger.open('vendor_a', at('2022-12-03T10:00:00+05:30'), 'INR')).toEqual([]);
  });

  test('the version moves only from the one expected: two writers from the same version, one wins', async () => {
    const { ledger } = subject();
    expect(await ledger.version('vendor_a', 'INR')).toBe(0);
    expect(await Promise.all([ledger.bump('vendor_a', 'INR', 0), ledger.bump('vendor_a', 'INR', 0)])).toEqual(expect.arrayContaining([true, false]));
    expect(await ledger.version('vendor_a', 'INR')).toBe(1);
    expect(await ledger.bump('vendor_a', 'INR', 0)).toBe(false);
    expect(await ledger.bump('vendor_a', 'INR', 1)).toBe(true);
    expect(await ledger.version('vendor_a', 'USD')).toBe(0);
  });
  test('an order\'s keys read by their closes: the entry, a removed one, and nothing for a key never written', async () => {
    const { ledger } = subject();
    await ledger.put(entry('o1', 'INR', '10.00', '2022-12-03T10:00:00+05:30'));
    await ledger.put(entry('o1', 'INR', '10.00', '2022-12-04T10:00:00+05:30'));
    await ledger.remove(entry('o1', 'INR', '10.00', '2022-12-03T10:00:00+05:30'));
    await ledger.put(entry('o2', 'INR', '20.00', '2022-12-05T10:00:00+05:30'));
    const found = await ledger.atCloses('vendor_a', 'INR', 'o1', [at('2022-12-03T10:00:00+05:30'), at('2022-12-04T10:00:00+05:30'), at('2022-12-05T10:00:00+05:30')]);
    expect(found).toEqual([
      { closesAt: at('2022-12-03T10:00:00+05:30'), entry: 'removed' },
      { closesAt: at('2022-12-04T10:00:00+05:30'), entry: entry('o1', 'INR', '10.00', '2022-12-04T10:00:00+05:30') },
    ]);
    expect(await ledger.atCloses('vendor_a', 'USD', 'o1', [at('2022-12-04T10:00:00+05:30')])).toEqual([]);
    expect(await ledger.atCloses('vendor_b', 'INR', 'o2', [at('2022-12-05T10:00:00+05:30')])).toEqual([]);
  });
});
