/** SHA-256 of text for deterministic event keys (node:crypto is pure computation, not I/O, so the domain may use it). */
import { createHash } from 'node:crypto';

/** The lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
