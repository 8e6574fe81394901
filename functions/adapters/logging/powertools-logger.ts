/** The Lambda logger: Powertools Logger (request id, service, X-Ray trace id, level by variable), every field redacted first. */
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../../application/ports';
import type { SecretScrubber } from '../secrets/gateway-credentials';
import { LogRedactor } from './json-lines-logger';

let containerLogger: PowertoolsLogger | undefined;

/** The one Powertools logger of a Lambda container: the handlers' `injectLambdaContext` adds each invocation's context to it. */
export function lambdaPowertoolsLogger(): PowertoolsLogger {
  containerLogger ??= new PowertoolsLogger();
  return containerLogger;
}

/**
 * Implements Holdback's Logger port over Powertools. The level comes from `POWERTOOLS_LOG_LEVEL` (the stack sets
 * INFO); the handlers add the Lambda context (request id) with `injectLambdaContext` and the order and vendor of the
 * record in hand with `withKeys`, so every line of an invocation carries them.
 */
export class LambdaLogger implements Logger {
  readonly powertools: PowertoolsLogger;
  readonly #redactor: LogRedactor;

  constructor(scrubber: SecretScrubber, powertools = lambdaPowertoolsLogger()) {
    this.powertools = powertools;
    this.#redactor = new LogRedactor(scrubber);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.powertools.info(this.#redactor.scrub(message), this.clean(fields));
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.powertools.warn(this.#redactor.scrub(message), this.clean(fields));
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.powertools.error(this.#redactor.scrub(message), this.clean(fields));
  }

  /** Runs `work` with these keys on every line it logs (e.g. the order and vendor of one queue record). */
  async withKeys<T>(keys: Record<string, string>, work: () => Promise<T>): Promise<T> {
    this.powertools.appendKeys(keys);
    try {
      return await work();
    } finally {
      this.powertools.removeKeys(Object.keys(keys));
    }
  }

  private clean(fields: Record<string, unknown> | undefined): Record<string, unknown> {
    return (this.#redactor.clean(fields ?? {}) as Record<string, unknown>);
  }
}
