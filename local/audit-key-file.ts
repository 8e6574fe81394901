/** Where the embedded default keeps the audit log's Ed25519 key: with its data, so checkpoints verify after a restart. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_KEY_FILE, type DataFolder } from './data-folder';

/**
 * The key file: the data folder's; else `HOLDBACK_AUDIT_KEY_FILE`; else (a runtime kept in memory) a file in a
 * private temporary folder removed at close, so that the API and every container thread sign with one key.
 */
export function localAuditKeyFile(folder: DataFolder | null, env: Record<string, string | undefined> = process.env): { file: string; remove: () => void } {
  if (folder) return { file: folder.auditKey, remove: () => undefined };
  const chosen = env.HOLDBACK_AUDIT_KEY_FILE?.trim();
  if (chosen) return { file: chosen, remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'holdback-audit-'));
  return { file: join(dir, AUDIT_KEY_FILE), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
