/** Which addresses the sandbox refuses to post webhooks to: link-local and cloud metadata services (SSRF). */
import { fieldError } from './http';

/** Host names of metadata services (AWS, GCP, Azure, Alibaba, Oracle) besides their link-local addresses. */
const METADATA_NAMES = new Set([
  'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', '100.100.100.200',
]);

/** An IPv4 address as four numbers, or null (URL has already turned decimal, hex and short forms into dotted quads). */
function ipv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  return parts.map(Number);
}

/** The 16-bit groups of an IPv6 address in URL's normalised (compressed, lower-case) form, or null. */
function ipv6Groups(host: string): number[] | null {
  if (!host.startsWith('[') || !host.endsWith(']')) return null;
  const text = host.slice(1, -1);
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const expand = (list: string[]) => list.flatMap((g) => {
    const quad = ipv4(g);
    return quad ? [quad[0] * 256 + quad[1], quad[2] * 256 + quad[3]] : [parseInt(g, 16)];
  });
  const first = expand(groups(head));
  const last = tail === undefined ? [] : expand(groups(tail));
  const all = [...first, ...new Array(Math.max(0, 8 - first.length - last.length)).fill(0), ...last];
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

/**
 * Why a notify URL's host is refused, or null: link-local IPv4 (169.254.0.0/16, where cloud metadata lives), link-local
 * IPv6 (fe80::/10), the same IPv4 mapped into IPv6, AWS's IPv6 metadata address fd00:ec2::254, and metadata names.
 */
function refusedNotifyHost(url: URL): string | null {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(host)) return `${host} is a cloud metadata service`;
  const v4 = ipv4(host);
  if (v4 && v4[0] === 169 && v4[1] === 254) return `${host} is a link-local address (169.254.0.0/16)`;
  const v6 = ipv6Groups(host);
  if (v6) {
    if ((v6[0] & 0xffc0) === 0xfe80) return `${host} is a link-local address (fe80::/10)`;
    const mapped = v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff;
    if (mapped && v6[6] >> 8 === 169 && (v6[6] & 0xff) === 254) return `${host} is a link-local address (169.254.0.0/16) written as IPv6`;
    if (v6[0] === 0xfd00 && v6[1] === 0x0ec2 && v6.slice(2, 7).every((g) => g === 0) && v6[7] === 0x254) return `${host} is AWS's metadata service`;
  }
  return null;
}

/**
 * `value` as a webhook address: an absolute http(s) URL whose host is not refused. Otherwise a field error naming
 * `field`, with `expected` (what to send) or the reason the host is refused.
 */
export function webhookAddress(field: string, value: unknown, expected: string): string {
  let url: URL | null = null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw fieldError(field, 'invalid', expected, value);
  const refused = refusedNotifyHost(url);
  if (refused) throw fieldError(field, 'invalid', `must not point at a link-local or metadata address: ${refused}`, value);
  return value as string;
}
