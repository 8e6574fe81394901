/**
 * "Prove this order": the order's proof (GET /audit/proof) checked here in the browser, with Web Crypto and the same
 * RFC 8785 canonical JSON as `holdback audit prove` (the shared check of functions/domain/audit/audit-proof-check.ts).
 */
import { useState } from 'preact/hooks';
import type { CheckpointAlgorithm } from '../../functions/domain/audit/audit-format';
import { checkProof, fromBase64, toHex, type ProofCheck, type ProofCrypto, type PublicKeyEntry, type StreamProof } from '../../functions/domain/audit/audit-proof-check';
import { call, problemOf } from './api';
import { indiaTime } from './format';

const subtle = (): SubtleCrypto => {
  if (!globalThis.crypto?.subtle) throw new Error('this browser offers no Web Crypto here (it needs https or a loopback address), so the proof cannot be checked in it');
  return globalThis.crypto.subtle;
};

/** An ECDSA signature's DER (SEQUENCE of two INTEGERs, as KMS answers) as Web Crypto's raw r || s, each `size` bytes. */
export function ecdsaDerToRaw(der: Uint8Array, size = 32): Uint8Array {
  let at = 2 + (der[1] & 0x80 ? der[1] & 0x7f : 0);
  if (der[0] !== 0x30) throw new Error('the ECDSA signature is not DER');
  const raw = new Uint8Array(size * 2);
  for (let part = 0; part < 2; part += 1) {
    if (der[at] !== 0x02) throw new Error('the ECDSA signature is not DER');
    const length = der[at + 1];
    let value = der.subarray(at + 2, at + 2 + length);
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    if (value.length > size) throw new Error('the ECDSA signature is too long for P-256');
    raw.set(value, part * size + size - value.length);
    at += 2 + length;
  }
  return raw;
}

const ALGORITHMS: Record<CheckpointAlgorithm, { importAs: EcKeyImportParams | Algorithm; verifyAs: EcdsaParams | Algorithm }> = {
  Ed25519: { importAs: { name: 'Ed25519' }, verifyAs: { name: 'Ed25519' } },
  ECDSA_SHA_256: { importAs: { name: 'ECDSA', namedCurve: 'P-256' }, verifyAs: { name: 'ECDSA', hash: 'SHA-256' } },
};

interface BrowserKey {
  key: CryptoKey;
  algorithm: CheckpointAlgorithm;
}

const WEB_CRYPTO: ProofCrypto<BrowserKey> = {
  sha256: async (bytes) => new Uint8Array(await subtle().digest('SHA-256', bytes as BufferSource)),
  verify: async ({ key, algorithm: keyAlgorithm }, algorithm, text, signature) => {
    if (keyAlgorithm !== algorithm) return false;
    const raw = algorithm === 'ECDSA_SHA_256' ? ecdsaDerToRaw(signature) : signature;
    return subtle().verify(ALGORITHMS[algorithm].verifyAs, key, raw as BufferSource, text as BufferSource);
  },
};

/** The listed keys by keyId; one that is no key of its algorithm, or not the fingerprint its local keyId names, is left out and named. */
async function browserKeys(list: readonly PublicKeyEntry[]): Promise<{ keys: Map<string, BrowserKey>; problems: string[] }> {
  const keys = new Map<string, BrowserKey>();
  const problems: string[] = [];
  for (const entry of list) {
    try {
      const der = fromBase64(entry.publicKeyPem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\s/g, ''));
      const key = await subtle().importKey('spki', der as BufferSource, ALGORITHMS[entry.algorithm].importAs, false, ['verify']);
      const print = toHex(await WEB_CRYPTO.sha256(der)).slice(0, 16);
      if (entry.keyId.startsWith('ed25519:') && entry.keyId !== `ed25519:${print}`) problems.push(`the listed key ${JSON.stringify(entry.keyId)} is not the key its keyId names (its fingerprint is ${print})`);
      else keys.set(entry.keyId, { key, algorithm: entry.algorithm });
    } catch {
      problems.push(`the listed key ${JSON.stringify(entry?.keyId)} is not a ${entry?.algorithm} public key in PEM`);
    }
  }
  return { keys, problems };
}

interface Proved {
  proof: StreamProof;
  check: ProofCheck;
  key: PublicKeyEntry | undefined;
  keyProblems: string[];
}

async function proveInBrowser(orderId: string): Promise<Proved> {
  const list = await call<PublicKeyEntry[]>('GET', '/audit/public-keys');
  const proof = await call<StreamProof>('GET', `/audit/proof?stream=${encodeURIComponent(`order#${orderId}`)}`);
  const { keys, problems } = await browserKeys(Array.isArray(list) ? list : []);
  const check = await checkProof(proof, keys, WEB_CRYPTO);
  return { proof, check, key: proof.checkpoint ? list.find((k) => k.keyId === proof.checkpoint!.keyId) : undefined, keyProblems: problems };
}

/** What was proved, in words. */
function provedText({ proof, check, key }: Proved, orderId: string): string {
  const pending = `records after the checkpoint: ${check.pending} pending (chained, not yet signed)`;
  const cp = proof.checkpoint;
  if (!cp) return `No checkpoint has signed order ${orderId} yet (the sweep signs within a minute): its ${check.pending} record${check.pending === 1 ? '' : 's'} chain from sequence 1, but nothing is proved yet.`;
  const validity = key ? `valid from ${key.from ? indiaTime(key.from) : 'the start'}${key.to ? ` to ${indiaTime(key.to)}` : ', still in use'}` : '';
  return `Proved in this browser: ${proof.records.length} record${proof.records.length === 1 ? '' : 's'} of order ${orderId} chain to head sequence ${check.signedSequence} (hash ${check.signedHash}); `
    + `the head is leaf ${proof.leafIndex} (counted from 0) of ${proof.treeSize} in checkpoint #${cp.number}${cp.root ? ` (root ${cp.root})` : ' (version 1: listed in its heads)'}, `
    + `signed by key ${cp.keyId} (${cp.algorithm}${validity ? `, ${validity}` : ''}) at ${indiaTime(cp.at)}; ${pending}.`;
}

export function ProveOrder({ orderId }: { orderId: string }) {
  const [busy, setBusy] = useState(false);
  const [proved, setProved] = useState<Proved | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const prove = async () => {
    setBusy(true);
    setProved(null);
    setFailure(null);
    try {
      setProved(await proveInBrowser(orderId));
    } catch (error) {
      setFailure(`The proof could not be fetched or checked: ${problemOf(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div data-testid="prove-order">
      <p class="hint">Fetches the order's audit records, the inclusion path of their head and the signed checkpoint, and checks them here in your browser (SHA-256 over RFC 8785 JSON, RFC 9162 path, the checkpoint's signature under the key GET /audit/public-keys lists): only that key list is taken from the server as it is.</p>
      <button type="button" disabled={busy} onClick={() => void prove()} data-testid="prove-order-button">Prove this order</button>
      {busy ? <p role="status">Checking the proof…</p> : null}
      {failure ? <p class="problem" role="alert" data-testid="proof-problem">{failure}</p> : null}
      {proved && !proved.check.ok ? <p class="problem" role="alert" data-testid="proof-problem">Order {orderId} does NOT prove: {proved.check.problem}</p> : null}
      {proved?.check.ok ? <p class={proved.proof.checkpoint ? 'ok' : 'hint'} role="status" data-testid="proof-result">{provedText(proved, orderId)}</p> : null}
      {proved?.keyProblems.map((problem, i) => <p key={i} class="problem refused" data-testid="proof-key-warning">Warning: {problem}</p>)}
    </div>
  );
}
