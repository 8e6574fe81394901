/**
 * An auditor's verifier of a Holdback audit export, written from docs/audit-log.md alone: node:crypto and the
 * `canonicalize` package (RFC 8785), and NOTHING imported from Holdback. Used by audit-independent-verifier.test.ts.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

const ZERO = '0'.repeat(64);
type Json = Record<string, unknown>;

export interface Broken { stream: string; sequence: number; reason: string }
export interface IndependentResult {
  ok: boolean;
  /** Refused as a whole (cut off, not a whole export, a forged key list), before any link was checked. */
  incomplete: string | null;
  firstBroken: Broken | null;
  breaks: Broken[];
  records: number;
  checkpoints: number;
  unsigned: number;
}

const jcs = (value: unknown): Buffer => Buffer.from(canonicalize(value) as string, 'utf8');
const sha256 = (...parts: Buffer[]): Buffer => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const without = (object: Json, ...names: string[]): Json => Object.fromEntries(Object.entries(object).filter(([k]) => !names.includes(k)));

function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return sha256(Buffer.from([0]), leaves[0]);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

const leaf = (head: Json): Buffer => jcs({ stream: head.stream, sequence: head.sequence, hash: head.hash });

/** RFC 9162 2.1.3.2: the root an inclusion path leads to, or null. */
export function rootOfPath(head: Json, index: number, size: number, path: string[]): string | null {
  if (index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = sha256(Buffer.from([0]), leaf(head));
  for (const hex of path) {
    if (sn === 0) return null;
    const p = Buffer.from(hex, 'hex');
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) { fn >>= 1; sn >>= 1; }
    } else {
      r = sha256(Buffer.from([1]), r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r.toString('hex') : null;
}

export interface ListedKey { keyId: string; algorithm: string; publicKeyPem: string }

/** keyId → key; a local keyId must be the key's fingerprint, else the list is forged. */
export function trustedKeys(list: ListedKey[]): { keys: Map<string, KeyObject>; forged: string | null } {
  const keys = new Map<string, KeyObject>();
  for (const entry of list) {
    let key: KeyObject;
    try {
      key = createPublicKey(entry.publicKeyPem);
    } catch {
      return { keys, forged: `${entry.keyId}: not a public key` };
    }
    if (entry.keyId.startsWith('ed25519:')) {
      const print = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
      if (entry.keyId !== `ed25519:${print}`) return { keys, forged: `${entry.keyId}: the PEM's fingerprint is ${print}` };
    }
    keys.set(entry.keyId, key);
  }
  return { keys, forged: null };
}

export function checkpointSignatureValid(checkpoint: Json, key: KeyObject): boolean {
  const bytes = jcs(without(checkpoint, 'hash', 'signature'));
  const signature = Buffer.from(String(checkpoint.signature), 'base64');
  try {
    if (checkpoint.algorithm === 'Ed25519') return verify(null, bytes, key, signature);
    if (checkpoint.algorithm === 'ECDSA_SHA_256') return verify('sha256', bytes, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
  return false;
}

export function recordHashOf(record: Json): string {
  return sha256(jcs(without(record, 'hash'))).toString('hex');
}

export function verifyExportText(text: string, keyList: ListedKey[]): IndependentResult {
  const result: IndependentResult = { ok: false, incomplete: null, firstBroken: null, breaks: [], records: 0, checkpoints: 0, unsigned: 0 };
  const refuse = (why: string): IndependentResult => ({ ...result, incomplete: why });
  if (!text.endsWith('\n')) return refuse('the last line has no line end: the file was cut off');
  const { keys, forged } = trustedKeys(keyList);
  if (forged) return refuse(`forged public key list: ${forged}`);
  let header: Json | null = null;
  const checkpoints: Json[] = [];
  const streams = new Map<string, Json[]>();
  const lines = text.slice(0, -1).split('\n');
  for (const [i, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return refuse(`line ${i + 1} is not JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse(`line ${i + 1} is not an object`);
    const { type, ...rest } = value as Json;
    if (type === 'record') {
      const list = streams.get(String(rest.stream)) ?? [];
      list.push(rest);
      streams.set(String(rest.stream), list);
      result.records += 1;
    } else if (type === 'checkpoint') checkpoints.push(rest);
    else if (i === 0) header = value as Json;
  }
  if (header?.complete !== true) return refuse('the header does not say this is the whole log: only a whole export proves nothing was deleted');
  result.checkpoints = checkpoints.length;

  // Checkpoints: chain, hash, form, key, signature; every signed head, per stream.
  const signed = new Map<string, Map<number, { hash: string; checkpoint: number }>>();
  const top = new Map<string, number>();
  const cpBreaks: Broken[] = [];
  const cpBreak = (n: number, reason: string) => cpBreaks.push({ stream: 'checkpoints', sequence: n, reason });
  checkpoints.sort((a, b) => Number(a.number) - Number(b.number));
  checkpoints.forEach((cp, i) => {
    const n = Number(cp.number);
    const expected = i === 0 ? 1 : Number(checkpoints[i - 1].number) + 1;
    if (i > 0 && n === expected - 1) cpBreak(n, `checkpoint ${n} twice (replayed)`);
    else if (n !== expected) cpBreak(expected, `expected checkpoint ${expected}, found ${n}`);
    else if (cp.previousHash !== (i === 0 ? ZERO : checkpoints[i - 1].hash)) cpBreak(n, 'previousHash does not link');
    if (sha256(jcs(without(cp, 'hash', 'signature'))).toString('hex') !== cp.hash) cpBreak(n, 'hash does not match');
    const heads = (cp.heads ?? []) as Json[];
    if (cp.version === 2) {
      for (let j = 1; j < heads.length; j++) {
        if (Buffer.compare(Buffer.from(String(heads[j - 1].stream)), Buffer.from(String(heads[j].stream))) >= 0) cpBreak(n, 'heads not in UTF-8 order');
      }
      if (mth(heads.map(leaf)).toString('hex') !== cp.root) cpBreak(n, 'root does not match');
    } else if (cp.version !== undefined || cp.root !== undefined) cpBreak(n, 'unknown checkpoint form');
    const key = keys.get(String(cp.keyId));
    if (!key) cpBreak(n, `unknown key ${String(cp.keyId)}`);
    else if (!checkpointSignatureValid(cp, key)) cpBreak(n, 'bad signature');
    for (const head of heads) {
      const stream = String(head.stream);
      const sequence = Number(head.sequence);
      const map = signed.get(stream) ?? new Map();
      const same = map.get(sequence);
      if (same && same.hash !== head.hash) cpBreak(n, `signs another hash for ${stream} ${sequence}`);
      if ((top.get(stream) ?? 0) > sequence) cpBreak(n, `signed head of ${stream} went down`);
      map.set(sequence, { hash: String(head.hash), checkpoint: n });
      signed.set(stream, map);
      top.set(stream, Math.max(top.get(stream) ?? 0, sequence));
    }
  });

  // Records: per stream from 1, hash, link; every signed head present with its hash.
  const streamBreaks: Broken[] = [];
  for (const stream of new Set([...streams.keys(), ...signed.keys()])) {
    const records = (streams.get(stream) ?? []).sort((a, b) => Number(a.sequence) - Number(b.sequence));
    const heads = signed.get(stream) ?? new Map();
    let previous = ZERO;
    let broken: Broken | null = null;
    for (const [i, record] of records.entries()) {
      const sequence = Number(record.sequence);
      if (sequence !== i + 1) { broken = { stream, sequence: i + 1, reason: `sequence ${i + 1} missing or duplicated` }; break; }
      if (recordHashOf(record) !== record.hash) { broken = { stream, sequence, reason: 'hash does not match' }; break; }
      if (record.prevHash !== previous) { broken = { stream, sequence, reason: 'prevHash does not link' }; break; }
      const head = heads.get(sequence);
      if (head && head.hash !== record.hash) { broken = { stream, sequence, reason: `checkpoint ${head.checkpoint} signed another hash` }; break; }
      previous = String(record.hash);
    }
    const highest = top.get(stream) ?? 0;
    if (!broken && records.length < highest) broken = { stream, sequence: records.length + 1, reason: `signed up to ${highest}, the stream ends at ${records.length}` };
    if (broken) streamBreaks.push(broken);
    else result.unsigned += Math.max(0, records.length - highest);
  }
  result.breaks = [...cpBreaks, ...streamBreaks];
  result.firstBroken = result.breaks[0] ?? null;
  result.ok = result.breaks.length === 0;
  return result;
}
