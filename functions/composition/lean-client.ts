/**
 * What the composition root does to every SDK client it builds, before its first call, so that each call costs less
 * CPU while sending the same request: one signer and its signing keys kept (kept-signer.ts), the user agent headers
 * kept (kept-user-agent.ts), no copy of its configuration by the serde middlewares (keepSerdeContext below).
 */
import { keepOneSigner } from './kept-signer';
import { keepUserAgent } from './kept-user-agent';
import { getSchemaSerdePlugin } from '@smithy/core/schema';

export function leanClient<T extends { middlewareStack: unknown; config: unknown }>(client: T): T {
  keepOneSigner(client);
  keepUserAgent(client);
  keepSerdeContext(client);
  return client;
}

/**
 * The SDK's own serialization and deserialization middlewares, without copying the client's configuration at every
 * call.
 *
 * For every request a schema-based client (every AWS SDK v3 client of this version) serializes the input with
 * `{ ...config, ...context, endpoint }` and deserializes the answer with `{ ...config, ...context }`: two copies of the
 * whole resolved configuration (about sixty settings) a call, the largest self time of @smithy/core in the CPU profile
 * of a DynamoDB call. This hands the SDK's middlewares (getSchemaSerdePlugin, same names, steps and code, error
 * handling included) a configuration whose only own setting is a protocol standing in for the client's: their copy is
 * then of the call's context alone, and the stand-in gives the client's protocol that copy with the client's
 * configuration behind it (its prototype), so every setting the protocol reads has the value the SDK's copy would give
 * (the context's where it has one, else the configuration's). The protocols read their context's settings by name and
 * never copy or enumerate it, so the request on the wire and the answer are the same
 * (test/unit/lean-serde.test.ts compares them with the SDK's default client's).
 */
interface Protocol {
  serializeRequest(operation: unknown, input: unknown, context: object): Promise<unknown>;
  deserializeResponse(operation: unknown, context: object, response: unknown): Promise<unknown>;
  setSerdeContext(context: unknown): void;
}

const isProtocol = (value: unknown): value is Protocol => typeof value === 'object' && value !== null
  && typeof (value as Protocol).serializeRequest === 'function' && typeof (value as Protocol).deserializeResponse === 'function';

/** Makes `client`'s serde middlewares copy no configuration (see above); a client without a schema protocol is left as it is. */
export function keepSerdeContext(client: { middlewareStack: unknown; config: unknown }): void {
  const config = client.config as { protocol?: unknown };
  const protocol = config.protocol;
  if (!isProtocol(protocol)) return;
  // The context the SDK's middleware made (the call's context and its protocol), with the configuration behind it.
  const onConfig = (context: object): object => {
    const full = Object.assign(Object.create(config) as Record<string, unknown>, context);
    if (full.protocol === stand) full.protocol = protocol;
    return full;
  };
  const stand: Protocol = Object.create(protocol, {
    serializeRequest: { value: (operation: unknown, input: unknown, context: object) => protocol.serializeRequest(operation, input, onConfig(context)) },
    deserializeResponse: { value: (operation: unknown, context: object, response: unknown) => protocol.deserializeResponse(operation, onConfig(context), response) },
    // The client's protocol keeps the serde context the client gave it (its whole configuration).
    setSerdeContext: { value: () => undefined },
  }) as Protocol;
  const thin = Object.create(config, { protocol: { value: stand, enumerable: true } }) as Parameters<typeof getSchemaSerdePlugin>[0];
  // Same names and options as the client's own (override: true), so these take their places.
  getSchemaSerdePlugin(thin).applyToStack(client.middlewareStack as never);
}
