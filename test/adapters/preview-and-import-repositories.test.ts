/** The previews and the policy-import journal on a real dynalite: what is stored reads back, an import starts once. */
import { DynamoPolicyImportRepository } from '../../functions/adapters/dynamodb/policy-import-repository';
import { DynamoPreviewRepository } from '../../functions/adapters/dynamodb/preview-repository';
import { PREVIEW_EXPIRY_ATTRIBUTE, TABLES } from '../../functions/definitions/tables';
import type { PolicyImport } from '../../functions/application/ports';
import { withLocalDynamo } from './local-dynamodb';
import { at } from '../times';

test('a preview reads back as saved, with an expiry the table TTL can read; an unknown one is null', async () => {
  await withLocalDynamo(async ({ doc, tables }) => {
    const previews = new DynamoPreviewRepository(doc, tables.config);
    const preview = { previewId: 'abc12345', scope: 'policy:vendor_a', digest: 'd'.repeat(64), createdAt: at('2022-12-02T16:05:00+05:30'), expiresAt: at('2022-12-02T17:05:00+05:30') };
    await previews.save(preview);
    expect(await previews.get('abc12345')).toEqual(preview);
    expect(await previews.get('nosuch00')).toBeNull();
    const item = await doc.get({ TableName: tables.config, Key: { pk: 'PREVIEW#abc12345', sk: 'PREVIEW' } });
    expect(item?.[PREVIEW_EXPIRY_ATTRIBUTE]).toBe(Date.parse('2022-12-02T17:05:00+05:30') / 1000);
    // The config table's TTL attribute: DynamoDB removes the expired preview.
    expect(TABLES.config.timeToLiveAttribute).toBe(PREVIEW_EXPIRY_ATTRIBUTE);
  });
});

test('an import begins once; a second begin answers the kept record; a rolled-back one may begin again', async () => {
  await withLocalDynamo(async ({ doc, tables }) => {
    const imports = new DynamoPolicyImportRepository(doc, tables.config);
    const record: PolicyImport = { importId: 'f'.repeat(64), actor: 'finance@example.com', rows: 3, state: 'applying', startedAt: at('2022-12-02T16:05:00+05:30'), finishedAt: null, reason: null };
    expect(await imports.begin(record)).toBeNull();
    expect(await imports.begin({ ...record, actor: 'other' })).toEqual(record);
    await imports.finish(record.importId, { state: 'rolled_back', at: at('2022-12-02T16:06:00+05:30'), reason: 'conflict' });
    expect(await imports.get(record.importId)).toMatchObject({ state: 'rolled_back', reason: 'conflict', finishedAt: '2022-12-02T16:06:00+05:30' });
    expect(await imports.begin({ ...record, startedAt: at('2022-12-02T16:07:00+05:30') })).toBeNull();
    await imports.finish(record.importId, { state: 'applied', at: at('2022-12-02T16:08:00+05:30'), reason: null });
    expect(await imports.begin(record)).toMatchObject({ state: 'applied', finishedAt: '2022-12-02T16:08:00+05:30' });
    // Only an applying import can finish.
    await expect(imports.finish(record.importId, { state: 'rolled_back', at: at('2022-12-02T16:09:00+05:30'), reason: 'late' })).rejects.toThrow();
  });
});
