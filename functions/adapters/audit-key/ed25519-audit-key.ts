/** The local audit key: an Ed25519 key pair kept as a PEM file with the local data (or in memory for tests). */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditKey } from '../../application/ports';

/** The key's name in checkpoints: `ed25519:` and the first 16 hex digits of the SHA-256 of its public key (DER). */
function fingerprint(publicKey: KeyObject): string {
  return `ed25519:${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16)}`;
}

export class Ed25519AuditKey implements AuditKey {
  readonly canSign = true;
  private readonly publicKey: KeyObject;

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
    try {
      return new Ed25519AuditKey(createPrivateKey(readFileSync(file, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`the audit key file ${file} cannot be read as an Ed25519 private key (PEM): ${(error as Error).message}`);
    }
    mkdirSync(dirname(file), { recursive: true });
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    try {
      writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new Ed25519AuditKey(createPrivateKey(readFileSync(file, 'utf8')));
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
