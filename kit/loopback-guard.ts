/** Keeps other web pages off the local servers: loopback Host names only (DNS rebinding), no cross-site changes (CSRF). */
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request was refused: the status and a code and message each server puts in its own error shape. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

export interface LoopbackRules {
  /** The port the server listens on: the only one its Host and Origin may name. */
  port: number;
  /**
   * Whether a change may come in a content type any page can send without a preflight (text/plain, a form). True only
   * where the server's own pages post forms (the sandbox's hosted checkout); a foreign Origin is refused there too.
   */
  formsAllowed: boolean;
}

/** The names this machine's loopback goes by; a browser sends one of them only when the page itself used it. */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
/** Content types a page on any site can send in a form or a no-cors fetch, without the server agreeing to it. */
const SIMPLE_CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data'];
const READS = ['GET', 'HEAD', 'OPTIONS'];

/** At most this much of a header is quoted back. */
const QUOTED_CHARS = 100;

function quoted(text: string): string {
  return JSON.stringify(text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}...` : text);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether a Host header names this server by a loopback name (with its port, or none). */
export function isLoopbackHost(host: string, port: number): boolean {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  return LOOPBACK_NAMES.includes(match[1]) && (match[2] === undefined || Number(match[2]) === port);
}

/** The origins of this server's own pages. */
function ownOrigins(port: number): string[] {
  return LOOPBACK_NAMES.map((name) => `http://${name}:${port}`);
}

/**
 * Null when the request may go on; otherwise why not. Every request must name a loopback Host (a missing Host is a
 * program, not a browser, and is let through); a change (any method but GET, HEAD, OPTIONS) must not come from another
 * origin (Origin, Sec-Fetch-Site) nor, unless the rules allow forms, in a content type any page can send.
 */
export function loopbackRefusal(req: { method?: string; headers: IncomingHttpHeaders }, rules: LoopbackRules): Refusal | null {
  const own = `http://127.0.0.1:${rules.port}`;
  const host = header(req.headers, 'host');
  if (host !== undefined && !isLoopbackHost(host, rules.port)) {
    return {
      status: 403,
      code: 'host_not_allowed',
      message: `Host ${quoted(host)} is not this local server: it answers only ${LOOPBACK_NAMES.map((n) => `${n}:${rules.port}`).join(', ')}. Send requests to ${own}`,
    };
  }
  if (READS.includes((req.method ?? 'GET').toUpperCase())) return null;
  const origin = header(req.headers, 'origin');
  if (origin !== undefined && !ownOrigins(rules.port).includes(origin.trim().toLowerCase())) {
    return {
      status: 403,
      code: 'cross_origin_refused',
      message: `Origin ${quoted(origin)} is another site: this local server takes changes only from its own pages (${own}) and from programs, which send no Origin`,
    };
  }
  // An own page under another loopback name (opened at localhost, posting to 127.0.0.1) is "cross-site" to the
  // browser but carries its own origin: the Origin decides when there is one.
  const site = header(req.headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (origin === undefined && (site === 'cross-site' || site === 'same-site')) {
    return {
      status: 403,
      code: 'cross_origin_refused',
      message: `Sec-Fetch-Site ${quoted(site)}: the request came from another site's page; this local server takes changes only from its own pages and from programs`,
    };
  }
  const type = header(req.headers, 'content-type');
  const media = type?.split(';')[0].trim().toLowerCase();
  if (!rules.formsAllowed && media !== undefined && SIMPLE_CONTENT_TYPES.includes(media)) {
    return {
      status: 415,
      code: 'content_type_refused',
      message: `Content-Type ${quoted(type!)} is what any web page can send unasked; send the body as application/json`,
    };
  }
  return null;
}
