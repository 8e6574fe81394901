/**
 * The audit log survives a kill (issue 16): `holdback start` on a data folder is killed with SIGKILL in the middle of a
 * burst of audited changes; started again on the same folder, its log verifies, by Holdback and by the public format
 * alone. (DynamoDB's item and index writes are one LevelDB batch in the local edge, and the checkpoint writer signs
 * only heads it read from the records themselves.)
 */
import { verifyExportText } from '../e2e/audit/independent-audit-verifier';
import { call, holdbacksOnDataFolder } from './holdback-process';

jest.setTimeout(180_000);

const data = holdbacksOnDataFolder('holdback-audit-kill-', 'test');

const RELEASES = [{ kind: 'at_max' }, { kind: 'immediate' }, { kind: 'after_payment', delay: 'P1D' }];

test('killed during a burst of audited changes, the log verifies after the restart', async () => {
  const first = await data.start(['--data', data.folder(), '--clock', '2022-12-02T16:05:00+05:30', '--frozen']);
  // A signed start: some streams are checkpointed before the burst.
  for (let v = 0; v < 4; v++) {
    await call(`${first.api}/vendors/vendor-k${v}/policy`, { method: 'PUT', body: JSON.stringify({ scheduleOption: 1, release: RELEASES[0], actor: 'test', reason: 'before' }) });
  }
  expect(await call(`${first.api}/audit/verify`)).toMatchObject({ ok: true });

  // The burst: policy changes on eight vendors from eight writers, as fast as they are answered, until the kill.
  let answered = 0;
  let stop = false;
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      try {
        await call(`${first.api}/vendors/vendor-k${w}/policy`, { method: 'PUT', body: JSON.stringify({ scheduleOption: 1, release: RELEASES[i % 3], actor: 'test', reason: `burst ${i}` }) });
        answered += 1;
      } catch {
        return; // the kill
      }
    }
  });
  // Killed once the burst is well under way (polled, not timed).
  for (let waited = 0; answered < 40 && waited < 600; waited++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(answered).toBeGreaterThanOrEqual(40);
  await first.killHard();
  stop = true;
  await Promise.all(writers);

  const second = await data.start(['--data', data.folder()]);
  const verified = await call<{ ok: boolean; records: number; firstBroken: unknown }>(`${second.api}/audit/verify`);
  expect(verified).toMatchObject({ ok: true, firstBroken: null });
  expect(verified.records).toBeGreaterThanOrEqual(answered);
  const exported = await (await fetch(`${second.api}/audit/export`)).text();
  const keys = await call<{ keyId: string; algorithm: string; publicKeyPem: string }[]>(`${second.api}/audit/public-keys`);
  expect(verifyExportText(exported, keys)).toMatchObject({ ok: true, incomplete: null, unsigned: 0 });
  await second.killHard();
});
