/** `holdback audit prove <orderId>`: fetches one order's proof (GET /audit/proof) and checks it here, offline. */
import { readFileSync } from 'node:fs';
import { publicKeyOf } from '../functions/domain/audit/audit-checkpoints';
import { checkStreamProof, publicKeyMap, type ProofCheck, type PublicKeyEntry, type StreamProof } from '../functions/domain/audit/audit-proof';
import { apiClientFor, UsageError } from './api-commands';

export interface AuditProveOptions {
  orderId?: string;
  apiUrl?: string;
  region?: string;
  /** A key list kept from before (GET /audit/public-keys): trusted instead of the one the API answers now. */
  publicKeys?: string;
  json?: boolean;
}

async function getJson<T>(apiUrl: string, region: string | undefined, path: string): Promise<T> {
  const answer = await apiClientFor(apiUrl, region).call({ method: 'GET', path });
  if (answer.status !== 200) throw new Error(`GET ${path.split('?')[0]} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as T;
}

/** The proof and its check; the keys come from `--public-keys` when given, else from the API. */
export async function proveOrder(options: AuditProveOptions): Promise<{ proof: StreamProof; check: ProofCheck; keyProblems: string[] }> {
  if (!options.orderId) throw new UsageError('the order id is missing: holdback audit prove <orderId>');
  const apiUrl = options.apiUrl ?? process.env.HOLDBACK_API_URL ?? `http://127.0.0.1:${process.env.HOLDBACK_API_PORT ?? 4000}`;
  let list: PublicKeyEntry[];
  if (options.publicKeys) {
    try {
      list = JSON.parse(readFileSync(options.publicKeys, 'utf8')) as PublicKeyEntry[];
    } catch (error) {
      throw new UsageError(`--public-keys ${options.publicKeys} cannot be read as the JSON of GET /audit/public-keys: ${(error as Error).message}`);
    }
  } else {
    list = await getJson<PublicKeyEntry[]>(apiUrl, options.region, '/audit/public-keys');
  }
  const proof = await getJson<StreamProof>(apiUrl, options.region, `/audit/proof?stream=${encodeURIComponent(`order#${options.orderId}`)}`);
  const { keys, problems } = publicKeyMap(Array.isArray(list) ? list : [], publicKeyOf);
  return { proof, check: await checkStreamProof(proof, keys), keyProblems: problems };
}

/** Prints what was proved; 0 when the proof holds, 1 when it does not. */
export async function runAuditProve(options: AuditProveOptions, out: (t: string) => void, err: (t: string) => void): Promise<number> {
  const { proof, check, keyProblems } = await proveOrder(options);
  if (options.json) out(`${JSON.stringify({ ...check, stream: proof.stream, checkpoint: proof.checkpoint?.number ?? null, keyId: proof.checkpoint?.keyId ?? null, keyProblems })}\n`);
  for (const problem of keyProblems) err(`warning: ${problem}\n`);
  if (!check.ok) {
    err(`${proof.stream} does NOT prove: ${check.problem}\n`);
    return 1;
  }
  if (options.json) return 0;
  if (!proof.checkpoint) {
    out(`${proof.stream}: ${check.pending} records chain from sequence 1, but no checkpoint has signed them yet (the sweep signs within a minute): nothing is proved yet\n`);
    return 0;
  }
  const cp = proof.checkpoint;
  out(`${proof.stream}: proved\n`
    + `  records 1 to ${check.signedSequence} chain from sequence 1, each matching its SHA-256 (RFC 8785)\n`
    + `  sequence ${check.signedSequence} (hash ${check.signedHash}) is leaf ${proof.leafIndex} of ${proof.treeSize} in checkpoint ${cp.number}`
    + `${cp.root ? `'s Merkle root ${cp.root}` : ' (version 1: listed in its heads)'}\n`
    + `  checkpoint ${cp.number} (${cp.at}, hash ${cp.hash}) is signed ${cp.algorithm} by ${cp.keyId}\n`
    + `${check.pending > 0 ? `  ${check.pending} later records chain after it but are not signed yet: not proved\n` : ''}`
    + '  keep the checkpoint hash: a later proof or export must chain to it\n');
  return 0;
}
