/**
 * The SDK's user agent headers made once per client and what they depend on, instead of at every call.
 *
 * For every request the SDK's user agent middleware escapes each part of the default user agent again (a regular
 * expression per part), awaits the retry strategy and the account id mode to name them as features, and joins it all:
 * in the CPU profile of a DynamoDB call about 4% of the caller's time, for the same two header values every time. This
 * middleware takes its place (same name, step and priority): it runs the SDK's own middleware the first time a client
 * meets a set of inputs and keeps the two headers it wrote; later calls with the same inputs get those headers. The
 * inputs are everything the SDK's reads per call: the features already set on the call's context (an endpoint
 * override, a paginator, a waiter...), the call's own user agent parts, the endpoint's host (an account endpoint is a
 * feature), the credentials' source features and a `smithy-protocol` header. What it reads from the client's
 * configuration (the default user agent, the app id, the retry mode, the account id mode) is fixed when the client is
 * built. A request that already carries a user agent header goes through the SDK's middleware as it is.
 */
import { userAgentMiddleware } from '@aws-sdk/core/client';

type Next = (args: { request?: unknown; input?: unknown }) => Promise<unknown>;
interface Headers { [name: string]: string | undefined }
interface UaContext {
  userAgent?: unknown[];
  endpointV2?: { url?: { hostname?: string } };
  __smithy_context?: { features?: Record<string, string>; selectedHttpAuthScheme?: { identity?: { $source?: Record<string, string>; accountId?: string } } };
  __aws_sdk_context?: { features?: Record<string, string> };
}
interface Stack {
  add(middleware: unknown, options: { step: 'build'; name: string; priority: 'low'; tags: string[]; override: true }): void;
}

const USER_AGENT = 'user-agent';
const X_AMZ_USER_AGENT = 'x-amz-user-agent';

const isRequest = (request: unknown): request is { headers: Headers } =>
  typeof request === 'object' && request !== null && typeof (request as { headers?: unknown }).headers === 'object';

/** Everything the SDK's middleware reads from one call, as one string. */
function inputsOf(context: UaContext, headers: Headers): string {
  const smithy = context.__smithy_context;
  const identity = smithy?.selectedHttpAuthScheme?.identity;
  return JSON.stringify([
    smithy?.features ?? null, context.__aws_sdk_context?.features ?? null, context.userAgent ?? null,
    context.endpointV2?.url?.hostname ?? null, identity?.$source ?? null, identity?.accountId ? 1 : 0, headers['smithy-protocol'] ?? null,
  ]);
}

/** Makes `client` keep its user agent headers (see above); a client without the SDK's user agent config is left as it is. */
export function keepUserAgent(client: { middlewareStack: unknown; config: unknown }): void {
  const config = client.config as { defaultUserAgentProvider?: unknown };
  if (typeof config.defaultUserAgentProvider !== 'function') return;
  const sdk = userAgentMiddleware(client.config as never) as unknown as (next: Next, context: UaContext) => Next;
  const kept = new Map<string, [string | undefined, string | undefined]>();
  const middleware = (next: Next, context: UaContext): Next => async (args) => {
    const { request } = args;
    if (!isRequest(request) || request.headers[USER_AGENT] !== undefined || request.headers[X_AMZ_USER_AGENT] !== undefined) return sdk(next, context)(args);
    const inputs = inputsOf(context, request.headers);
    const headers = kept.get(inputs);
    if (!headers) {
      return sdk((made) => {
        if (isRequest(made.request) && kept.size < 64) kept.set(inputs, [made.request.headers[X_AMZ_USER_AGENT], made.request.headers[USER_AGENT]]);
        return next(made);
      }, context)(args);
    }
    if (headers[0] !== undefined) request.headers[X_AMZ_USER_AGENT] = headers[0];
    if (headers[1] !== undefined) request.headers[USER_AGENT] = headers[1];
    return next(args);
  };
  (client.middlewareStack as Stack).add(middleware, {
    step: 'build', name: 'getUserAgentMiddleware', priority: 'low', tags: ['SET_USER_AGENT', 'USER_AGENT'], override: true,
  });
}
