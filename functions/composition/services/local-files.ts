/**
 * The embedded default's stand-ins for S3 and KMS: export files in a folder the API serves, the audit checkpoints'
 * key in a key file. Only the compositions whose use cases write exports (api, jobs) or use the key (sweep, jobs,
 * api) load them; on AWS they are never built.
 */
import { Ed25519AuditKey } from '../../adapters/audit-key/ed25519-audit-key';
import { FileExportStore } from '../../adapters/files/file-export-store';
import type { AwsAdapters } from '../compose';

export const exportFolder: NonNullable<AwsAdapters['exportFolder']> = (dir, baseUrl) => new FileExportStore(dir, baseUrl);

export const auditKeyFile: NonNullable<AwsAdapters['auditKeyFile']> = (file) => Ed25519AuditKey.fromFile(file);
