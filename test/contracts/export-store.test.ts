/**
 * The contract of the ExportStore port, run alike against the in-memory store the use-case tests rely on and the file
 * store the embedded default serves exports from (in a temporary folder): a fake that drifts from its adapter fails here.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportDownload, ExportStore } from '../../functions/application/ports';
import { FileExportStore } from '../../functions/adapters/files/file-export-store';
import { InMemoryExportStore } from '../fakes/jobs';
import { describeEachSubject, inMemory, type Subject, type Subjects } from './subjects';

type Serving = { store: ExportStore & Required<Pick<ExportStore, 'open'>> };

async function inAFolder(): Promise<Subject<Serving>> {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-export-contract-'));
  return { store: new FileExportStore(folder, 'http://127.0.0.1:4999'), close: async () => rmSync(folder, { recursive: true, force: true }) };
}

const SUBJECTS: Subjects<Serving> = [
  ['the in-memory store', inMemory(() => ({ store: new InMemoryExportStore() }))],
  ['the file store', inAFolder],
];

/** Export keys are a job id and an extension. */
const KEY = 'job_1669977300000_abcdefghij.csv';
const NOW = new Date('2022-12-02T10:35:00Z');
const LATER = new Date('2022-12-03T10:35:00Z');
const NOW_PLUS_TWO_HOURS = new Date('2022-12-02T12:35:00Z');

async function* lines(...texts: string[]): AsyncIterable<string> {
  yield* texts;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

async function textOf(download: ExportDownload): Promise<string> {
  if (download.kind !== 'file') throw new Error(`not a file: ${JSON.stringify(download)}`);
  let text = '';
  for await (const chunk of download.chunks) text += chunk;
  return text;
}

/** The token of a link (the part after `token=`), as the API reads it from the URL. */
const tokenOf = (link: string): string => new URL(link).searchParams.get('token')!;

describeEachSubject(SUBJECTS, (subject) => {

  test('a file written is answered by its size and SHA-256, and served whole by its link under the name it was given', async () => {
    const { store } = subject();
    const text = 'orderId,vendorId,amount\norder_1001,vendor_A,1250.50\nऑर्डर,vendor_B,10.00\n';
    expect(await store.write(KEY, 'text/csv', lines('orderId,vendorId,amount\n', 'order_1001,vendor_A,1250.50\n', 'ऑर्डर,vendor_B,10.00\n')))
      .toEqual({ bytes: Buffer.byteLength(text), sha256: sha256(text) });
    const link = await store.link(KEY, LATER, 'outcomes-2022-12-02.csv');
    const download = await store.open(KEY, tokenOf(link), NOW);
    expect(download).toMatchObject({ kind: 'file', contentType: 'text/csv', fileName: 'outcomes-2022-12-02.csv' });
    expect(await textOf(download)).toBe(text);
  });

  test('a link past its expiry serves nothing but says when it expired; a wrong token or an unknown file is not found', async () => {
    const { store } = subject();
    await store.write(KEY, 'text/csv', lines('a,b\n'));
    const token = tokenOf(await store.link(KEY, LATER, 'outcomes.csv'));
    expect(await store.open(KEY, token, LATER)).toEqual({ kind: 'expired', expiresAt: '2022-12-03T10:35:00Z' });
    expect(await store.open(KEY, `${token}x`, NOW)).toEqual({ kind: 'not_found' });
    expect(await store.open('job_1669977300000_zzzzzzzzzz.csv', token, NOW)).toEqual({ kind: 'not_found' });
  });

  test('parts written in steps (again after a retry) make one file in part order; combined again once the parts are gone, the same answer', async () => {
    const { store } = subject();
    expect(await store.writePart(KEY, 1, lines('order_2,vendor_A,2.00\n'))).toEqual({ bytes: 22 });
    expect(await store.writePart(KEY, 0, lines('order_0,vendor_A,0.50\n', 'order_1,vendor_A,1.00\n'))).toEqual({ bytes: 44 });
    // Part 1 again, as a step delivered twice writes it: replaced, never appended.
    await store.writePart(KEY, 1, lines('order_2,vendor_A,2.00\n'));
    const text = 'order_0,vendor_A,0.50\norder_1,vendor_A,1.00\norder_2,vendor_A,2.00\n';
    const combined = await store.combine(KEY, 'text/csv', 2);
    expect(combined).toEqual({ bytes: Buffer.byteLength(text), sha256: sha256(text) });
    expect(await store.combine(KEY, 'text/csv', 2)).toEqual(combined);
    expect(await textOf(await store.open(KEY, tokenOf(await store.link(KEY, LATER, 'outcomes.csv')), NOW))).toBe(text);
  });

  test('a file written twice at once (a step delivered twice) is whole, and the link the first try gave stays valid', async () => {
    const { store } = subject();
    const rows = Array.from({ length: 2000 }, (_, n) => `order_${n},vendor_A,${n}.00\n`);
    const text = `orderId,vendorId,amount\n${rows.join('')}`;
    const slowly = async function* slow(): AsyncIterable<string> {
      yield 'orderId,vendorId,amount\n';
      for (const row of rows) {
        await new Promise((resolve) => setImmediate(resolve));
        yield row;
      }
    };
    const [first, second] = await Promise.all([store.write(KEY, 'text/csv', slowly()), store.write(KEY, 'text/csv', slowly())]);
    expect(first).toEqual({ bytes: Buffer.byteLength(text), sha256: sha256(text) });
    expect(second).toEqual(first);
    const link = await store.link(KEY, NOW_PLUS_TWO_HOURS, 'outcomes.csv');
    // The second try writes the file again and links it, a little later: the first link still serves the whole file.
    await store.write(KEY, 'text/csv', lines(text));
    const again = await store.link(KEY, new Date(NOW_PLUS_TWO_HOURS.getTime() + 1000), 'outcomes.csv');
    expect(tokenOf(again)).toBe(tokenOf(link));
    expect(await textOf(await store.open(KEY, tokenOf(link), NOW))).toBe(text);
    // Neither answer's expiry comes before the link's: the later one is kept.
    expect(await textOf(await store.open(KEY, tokenOf(link), new Date(NOW_PLUS_TWO_HOURS.getTime() + 500)))).toBe(text);
  });

  test('two tries writing and linking at once (a restart\'s redelivery beside the step that ran on) give one token, which serves the file', async () => {
    const { store } = subject();
    const text = 'orderId,vendorId,amount\norder_1,vendor_A,1.00\n';
    // Each try writes the file and links it; twenty pairs interleave their sidecar rewrites every way the loop allows.
    for (let round = 0; round < 20; round += 1) {
      const key = `job_16699773${String(round).padStart(5, '0')}_abcdefghij.csv`;
      const tryOnce = async () => {
        await store.write(key, 'text/csv', lines(text));
        return store.link(key, NOW_PLUS_TWO_HOURS, 'outcomes.csv');
      };
      const [first, second] = await Promise.all([tryOnce(), tryOnce()]);
      expect([round, tokenOf(second)]).toEqual([round, tokenOf(first)]);
      expect(await textOf(await store.open(key, tokenOf(first), NOW))).toBe(text);
    }
  });

  test('a missing part is refused, naming the file', async () => {
    const { store } = subject();
    await store.writePart(KEY, 0, lines('a\n'));
    await expect(store.combine(KEY, 'text/csv', 2)).rejects.toThrow(new RegExp(`export ${KEY}: .*missing`));
  });
});
