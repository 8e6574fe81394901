/** SHA-256 of text for event keys, audit records and digests (node:crypto is pure computation, not I/O, so the domain may use it). */
import { hash } from 'node:crypto';

/**
 * The lowercase hex SHA-256 of the UTF-8 bytes of `text`. One-shot `crypto.hash` (Node 20.12+, and Lambda's 24):
 * half the cost of createHash for a record-sized text.
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
