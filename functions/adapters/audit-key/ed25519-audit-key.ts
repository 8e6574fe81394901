/** The local audit key: an Ed25519 key pair kept as a PEM file with the local data (or in memory for tests). */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AuditKey, AuditPublicKey } from '../../application/ports';

/** Beside the key file: every public key that ever signed there, so that replacing the key keeps old checkpoints verifiable. */
export const KEY_RING_FILE = 'audit-keys.json';

/** The key's name in checkpoints: `ed25519:` and the first 16 hex digits of the SHA-256 of its public key (DER). */
function fingerprint(publicKey: KeyObject): string {
  return `ed25519:${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16)}`;
}

export class Ed25519AuditKey implements AuditKey {
  readonly canSign = true;
  private readonly publicKey: KeyObject;
  /** Keys retired before this one (from the key ring file), oldest first. */
  private retired: AuditPublicKey[] = [];
  private since: string | null = null;

  constructor(private readonly privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`the audit key must be an Ed25519 private key, not ${privateKey.asymmetricKeyType ?? 'a symmetric key'}`);
    this.publicKey = createPublicKey(privateKey);
  }

  /** A key that lives as long as the process (tests, and a local runtime started without a data folder). */
  static inMemory(): Ed25519AuditKey {
    return new Ed25519AuditKey(generateKeyPairSync('ed25519').privateKey);
  }

  /**
   * The key in `file` (PKCS#8 PEM), created there on first use (mode 0600). Two threads starting at once both try to
   * create it exclusively; the one that loses reads the winner's.
   */
  static fromFile(file: string): Ed25519AuditKey {
    const ring = join(dirname(file), KEY_RING_FILE);
    let existing: Ed25519AuditKey | null = null;
    try {
      existing = new Ed25519AuditKey(createPrivateKey(readFileSync(file, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`the audit key file ${file} cannot be read as an Ed25519 private key (PEM): ${(error as Error).message}`);
    }
    if (existing) return existing.withRing(ring);
    mkdirSync(dirname(file), { recursive: true });
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    try {
      writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new Ed25519AuditKey(createPrivateKey(readFileSync(file, 'utf8'))).withRing(ring);
  }

  /**
   * Lists this key in the ring file (created on first use): a key not listed yet retires the one listed last. Entries
   * are only added, never removed, so a key replaced by hand stays listed and its checkpoints keep verifying.
   */
  private withRing(ringFile: string): this {
    const self: AuditPublicKey = { keyId: fingerprint(this.publicKey), algorithm: 'Ed25519', publicKeyPem: this.publicKey.export({ type: 'spki', format: 'pem' }) as string, from: null, to: null };
    let ring: AuditPublicKey[] = [];
    try {
      ring = JSON.parse(readFileSync(ringFile, 'utf8')) as AuditPublicKey[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`the audit key ring ${ringFile} cannot be read as JSON: ${(error as Error).message}; restore it from a backup (it lists the public keys of old checkpoints)`);
    }
    if (!ring.some((key) => key.keyId === self.keyId)) {
      const now = new Date().toISOString();
      ring = [...ring.map((key) => (key.to === null ? { ...key, to: now } : key)), { ...self, from: now }];
      // Written whole then renamed: a kill leaves the old ring or the new one.
      const next = `${ringFile}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(next, `${JSON.stringify(ring, null, 2)}\n`, { mode: 0o644 });
      renameSync(next, ringFile);
    }
    this.retired = ring.filter((key) => key.keyId !== self.keyId);
    this.since = ring.find((key) => key.keyId === self.keyId)?.from ?? null;
    return this;
  }

  async publicKeys(): Promise<AuditPublicKey[]> {
    const { keyId, algorithm } = await this.identity();
    return [...this.retired, { keyId, algorithm, publicKeyPem: await this.publicKeyPem(), from: this.since, to: null }];
  }

  async identity(): Promise<{ algorithm: 'Ed25519'; keyId: string }> {
    return { algorithm: 'Ed25519', keyId: fingerprint(this.publicKey) };
  }

  async publicKeyPem(): Promise<string> {
    return this.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  }

  async sign(text: string): Promise<string> {
    return sign(null, Buffer.from(text, 'utf8'), this.privateKey).toString('base64');
  }
}
