/**
 * The contracts of the PreviewRepository and PolicyImportRepository ports, run alike against the in-memory fakes the
 * use-case tests rely on and the DynamoDB adapters on a real dynalite: a fake that drifts from its adapter fails here.
 */
import type { PolicyImport, PolicyImportRepository, PreviewRepository, StoredPreview } from '../../functions/application/ports';
import { DynamoPolicyImportRepository } from '../../functions/adapters/dynamodb/policy-import-repository';
import { DynamoPreviewRepository } from '../../functions/adapters/dynamodb/preview-repository';
import { InMemoryPolicyImportRepository, InMemoryPreviewRepository } from '../fakes/change-records';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { at } from '../times';

const SUBJECTS: Subjects<{ previews: PreviewRepository; imports: PolicyImportRepository }> = [
  ['the in-memory fakes', inMemory(() => ({ previews: new InMemoryPreviewRepository(), imports: new InMemoryPolicyImportRepository() }))],
  ['the DynamoDB adapters', onDynalite((local) => ({
    previews: new DynamoPreviewRepository(local.doc, local.tables.config),
    imports: new DynamoPolicyImportRepository(local.doc, local.tables.config),
  }))],
];

const preview = (previewId: string, scope: string): StoredPreview => ({
  previewId, scope, digest: 'a'.repeat(64), createdAt: at('2022-12-02T16:00:00+05:30'), expiresAt: at('2022-12-02T16:15:00+05:30'),
});
const started = (importId: string): PolicyImport => ({
  importId, actor: 'finance@example.com', rows: 3, state: 'applying', startedAt: at('2022-12-02T16:00:00+05:30'), finishedAt: null, reason: null,
});

describeEachSubject(SUBJECTS, (subject) => {

  describe('PreviewRepository', () => {
    test('a saved preview is read back as saved, an unknown one is null, each by its id', async () => {
      await subject().previews.save(preview('prv_1', 'policy:vendor_a'));
      await subject().previews.save(preview('prv_2', 'settings'));
      expect(await subject().previews.get('prv_1')).toEqual(preview('prv_1', 'policy:vendor_a'));
      expect((await subject().previews.get('prv_2'))?.scope).toBe('settings');
      expect(await subject().previews.get('prv_3')).toBeNull();
    });

    test('an expired preview is still answered: the caller compares expiresAt', async () => {
      const old = { ...preview('prv_old', 'settings'), expiresAt: at('2000-01-01T00:00:00+05:30') };
      await subject().previews.save(old);
      expect(await subject().previews.get('prv_old')).toEqual(old);
    });
  });

  describe('PolicyImportRepository', () => {
    test('begin writes and answers null; the same import begun again answers the record kept, writing nothing', async () => {
      expect(await subject().imports.begin(started('imp_1'))).toBeNull();
      expect(await subject().imports.begin({ ...started('imp_1'), actor: 'someone@example.com' })).toEqual(started('imp_1'));
      expect(await subject().imports.get('imp_1')).toEqual(started('imp_1'));
      expect(await subject().imports.get('imp_2')).toBeNull();
    });

    test('finish ends an applying import once; an applied import answers begin with itself, and cannot be finished again', async () => {
      await subject().imports.begin(started('imp_1'));
      await subject().imports.finish('imp_1', { state: 'applied', at: at('2022-12-02T16:00:05+05:30'), reason: null });
      const applied = { ...started('imp_1'), state: 'applied', finishedAt: '2022-12-02T16:00:05+05:30' };
      expect(await subject().imports.get('imp_1')).toEqual(applied);
      expect(await subject().imports.begin(started('imp_1'))).toEqual(applied);
      await expect(subject().imports.finish('imp_1', { state: 'rolled_back', at: at('2022-12-02T16:01:00+05:30'), reason: 'again' })).rejects.toThrow();
      await expect(subject().imports.finish('imp_never', { state: 'applied', at: at('2022-12-02T16:01:00+05:30'), reason: null })).rejects.toThrow();
    });

    test('a rolled-back import may begin again', async () => {
      await subject().imports.begin(started('imp_1'));
      await subject().imports.finish('imp_1', { state: 'rolled_back', at: at('2022-12-02T16:00:05+05:30'), reason: 'vendor_a changed while applying' });
      expect((await subject().imports.get('imp_1'))).toMatchObject({ state: 'rolled_back', reason: 'vendor_a changed while applying' });
      expect(await subject().imports.begin({ ...started('imp_1'), startedAt: at('2022-12-02T16:02:00+05:30') })).toBeNull();
      expect(await subject().imports.get('imp_1')).toMatchObject({ state: 'applying', startedAt: '2022-12-02T16:02:00+05:30', finishedAt: null, reason: null });
    });
  });
});
