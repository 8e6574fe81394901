/**
 * A client hook (the local runtime's `clientHook`) that says, at each client's first call, which request handler the
 * client (or which transport a client-less sender) sends with and on which thread, on a BroadcastChannel that reaches the test from every container.
 */
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import type { ClientHook } from '../../../functions/composition-root';

export const PROBE_CHANNEL = 'holdback-request-handler-probe';

export interface HandlerSeen {
  mainThread: boolean;
  service: string;
  handler: string;
  calls: number;
}

type Stack = { add(middleware: unknown, options: { step: 'initialize'; name: string; override?: boolean }): void };

export const clientHook: ClientHook = (client, service) => {
  const channel = new BroadcastChannel(PROBE_CHANNEL);
  channel.unref();
  let told = false;
  const middleware = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
    if (!told) {
      told = true;
      // An SDK client's request handler, or a client-less sender's transport (signed-request.ts; null: HTTP).
      const { config, http } = client as unknown as { config?: { requestHandler?: { constructor?: { name?: string } } }; http?: { transport: { constructor?: { name?: string } } | null } };
      const handler = config ? config.requestHandler : http?.transport;
      const seen: HandlerSeen = { mainThread: isMainThread, service, handler: handler?.constructor?.name ?? 'none', calls: 1 };
      channel.postMessage(seen);
    }
    return next(args);
  };
  (client.middlewareStack as Stack).add(middleware, { step: 'initialize', name: 'holdbackRequestHandlerProbe', override: true });
};
