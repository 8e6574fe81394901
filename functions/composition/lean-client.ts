/**
 * What the composition root does to every SDK client it builds, before its first call, so that each call costs less
 * CPU while sending the same request: one signer and its signing keys kept (kept-signer.ts), the user agent headers
 * kept (kept-user-agent.ts), no copy of its configuration by the serde middlewares (lean-serde.ts).
 */
import { keepOneSigner } from './kept-signer';
import { keepUserAgent } from './kept-user-agent';
import { keepSerdeContext } from './lean-serde';

export function leanClient<T extends { middlewareStack: unknown; config: unknown }>(client: T): T {
  keepOneSigner(client);
  keepUserAgent(client);
  keepSerdeContext(client);
  return client;
}
