/** `holdback audit verify --file F --public-key K`: checks an audit export offline (no AWS credentials, no network). */
import { accessSync, constants, createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { KeyObject } from 'node:crypto';
import { publicKeyOf } from '../functions/domain/audit/audit-checkpoints';
import { verifyExport, type ExportVerification } from '../functions/domain/audit/audit-export';
import { publicKeyMap, type PublicKeyEntry } from '../functions/domain/audit/audit-proof';
import { UsageError } from './api-commands';

export interface AuditVerifyOptions {
  file?: string;
  publicKey?: string;
  /** The JSON of GET /audit/public-keys: each checkpoint verifies under the key its keyId names. */
  publicKeys?: string;
  partial?: boolean;
  json?: boolean;
}

/** Thrown for a command used wrongly (the CLI's one kind, shared with the API commands); the CLI prints it and exits 2. */
export { UsageError };

/** Reads the export twice (checkpoints, then records) a line at a time, so a large file needs little memory. */
function linesOf(file: string): () => AsyncIterable<string> {
  return () => createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
}

export async function verifyExportFile(options: AuditVerifyOptions): Promise<ExportVerification & { keyProblems?: string[] }> {
  if (!options.file) throw new UsageError('--file is missing: give the export, e.g. --file audit.ndjson (from GET /audit/export)');
  if (!options.publicKey && !options.publicKeys) throw new UsageError('--public-keys is missing: give the key list, e.g. --public-keys audit-keys.json (from GET /audit/public-keys), or one PEM key with --public-key');
  let keys: { publicKeys?: Map<string, KeyObject>; publicKey?: KeyObject } = {};
  let keyProblems: string[] = [];
  if (options.publicKeys) {
    let list: PublicKeyEntry[];
    try {
      list = JSON.parse(readFileSync(options.publicKeys, 'utf8')) as PublicKeyEntry[];
    } catch (error) {
      throw new UsageError(`--public-keys ${options.publicKeys} cannot be read as the JSON of GET /audit/public-keys: ${(error as Error).message}`);
    }
    if (!Array.isArray(list)) throw new UsageError(`--public-keys ${options.publicKeys} is not a list [{keyId, algorithm, publicKeyPem, from, to}] (GET /audit/public-keys)`);
    const { keys: map, problems } = publicKeyMap(list, publicKeyOf);
    // A forged entry is left out: the checkpoints it would verify are reported as signed by an unknown key.
    keyProblems = problems;
    keys = { publicKeys: map };
  } else {
    let pem: string;
    try {
      pem = readFileSync(options.publicKey!, 'utf8');
    } catch (error) {
      throw new UsageError(`--public-key ${options.publicKey} cannot be read: ${(error as Error).message}`);
    }
    const key = publicKeyOf(pem);
    if (!key) throw new UsageError(`--public-key ${options.publicKey} is not a public key in PEM form (-----BEGIN PUBLIC KEY-----)`);
    keys = { publicKey: key };
  }
  try {
    accessSync(options.file, constants.R_OK);
  } catch (error) {
    throw new UsageError(`--file ${options.file} cannot be read: ${(error as Error).message}`);
  }
  const result = await verifyExport(linesOf(options.file), { ...keys, partial: options.partial });
  return keyProblems.length > 0 ? { ...result, keyProblems } : result;
}

/** Prints the result; the exit code is 0 when the export verifies, 1 with the first broken link when it does not. */
export async function runAuditVerify(options: AuditVerifyOptions): Promise<number> {
  const result = await verifyExportFile(options);
  for (const problem of result.keyProblems ?? []) process.stderr.write(`warning: ${problem}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else if (result.ok) {
    process.stdout.write(`audit export verifies: ${result.records} records in ${result.streams} streams, ${result.checkpoints} signed checkpoints`
      + `${result.unsignedRecords > 0 ? `, ${result.unsignedRecords} records after the last checkpoint (chained, not yet signed)` : ''}`
      + `${result.complete ? '' : ' (a time range: the first record of each stream links to one outside the file)'}\n`);
  } else {
    const broken = result.firstBroken!;
    process.stderr.write(`audit export does NOT verify: first broken link at ${broken.stream} sequence ${broken.sequence}: ${broken.reason}\n`);
  }
  return result.ok ? 0 : 1;
}
