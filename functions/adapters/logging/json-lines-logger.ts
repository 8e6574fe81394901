/** A logger that writes one JSON object per line and never prints a secret. */
import type { Logger } from '../../application/ports';
import { SecretScrubber } from '../secrets/gateway-credentials';

export interface JsonLinesLoggerOptions {
  /** Secret values (client secret, ...) replaced wherever they appear in a message or field. */
  secrets?: string[];
  /** Secrets learnt at run time (credentials fetched from Secrets Manager); shared with the gateway clients. */
  scrubber?: SecretScrubber;
  /** Fields added to every line (e.g. the function name). */
  base?: Record<string, unknown>;
  /** Where lines go; default stdout (CloudWatch reads Lambda's stdout line by line). */
  write?: (line: string) => void;
  /** Time of each line; default the system time. */
  now?: () => string;
}

const REDACTED = '[redacted]';
/** Fields whose name says they hold a credential are never printed, whatever their value. */
const SECRET_FIELD = /secret|password|passwd|token|authorization|credential|api[-_]?key|signature/i;
const MAX_DEPTH = 8;

/**
 * Makes any log field safe to print: secret values replaced wherever they appear, credential-named fields hidden,
 * errors and dates as text, cycles and depth bounded. Shared by the JSON-lines logger and the Powertools logger.
 */
export class LogRedactor {
  readonly #scrubber: SecretScrubber;

  constructor(scrubber: SecretScrubber) {
    this.#scrubber = scrubber;
  }

  clean(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (typeof value === 'bigint') return value.toString();
    if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
    if (seen.has(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    seen.add(value);
    if (value instanceof Error) {
      return {
        name: value.name,
        message: this.scrub(value.message),
        ...(value.stack ? { stack: this.scrub(value.stack) } : {}),
        ...(value.cause !== undefined ? { cause: this.clean(value.cause, depth + 1, seen) } : {}),
      };
    }
    if (value instanceof Date) return value.toISOString();
    // luxon DateTime and Duration: their ISO text, not their internals.
    const iso = (value as { toISO?: unknown }).toISO;
    if (typeof iso === 'function') return iso.call(value);
    if (Array.isArray(value)) return value.map((item) => this.clean(item, depth + 1, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_FIELD.test(key) ? REDACTED : this.clean(item, depth + 1, seen);
    }
    return out;
  }

  scrub(text: string): string {
    return this.#scrubber.scrub(text, REDACTED);
  }
}

export class JsonLinesLogger implements Logger {
  readonly #redactor: LogRedactor;
  private readonly base: Record<string, unknown>;
  private readonly write: (line: string) => void;
  private readonly now: () => string;

  constructor(options: JsonLinesLoggerOptions = {}) {
    const scrubber = options.scrubber ?? new SecretScrubber();
    scrubber.remember(...(options.secrets ?? []));
    this.#redactor = new LogRedactor(scrubber);
    this.base = options.base ?? {};
    this.write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.now = options.now ?? (() => new Date().toISOString());
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.line('info', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.line('warn', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.line('error', message, fields);
  }

  private line(level: string, message: string, fields: Record<string, unknown> = {}): void {
    const record = { level, time: this.now(), message, ...this.base, ...fields };
    this.write(JSON.stringify(this.#redactor.clean(record)));
  }
}
