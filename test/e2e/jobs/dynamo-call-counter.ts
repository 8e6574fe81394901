/** A client hook (ClientHook of the composition root) that lists the DynamoDB calls made on the thread it runs on. */
import type { ClientHook } from '../../../functions/composition-root';

type Stack = { add(middleware: unknown, options: { step: 'initialize'; name: string; override?: boolean }): void };

const CALLS = Symbol.for('holdback.test.dynamoCalls');

/** This thread's DynamoDB calls so far, by operation name, in order (the test empties it before a request). */
export function dynamoCalls(): string[] {
  const holder = globalThis as unknown as Record<symbol, string[] | undefined>;
  return (holder[CALLS] ??= []);
}

export const clientHook: ClientHook = (client, service) => {
  if (service !== 'DynamoDB') return;
  const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    dynamoCalls().push((context.commandName ?? 'Unknown').replace(/Command$/, ''));
    return next(args);
  };
  (client.middlewareStack as Stack).add(middleware, { step: 'initialize', name: 'testDynamoCallCounter', override: true });
};
