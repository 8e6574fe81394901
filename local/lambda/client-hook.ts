/** Loads the local runtime's client hook (LocalRuntimeOptions.clientHook) by its module path, on whichever thread asks. */
import type { ClientHook } from '../../functions/composition-root';

export function loadClientHook(file: string): ClientHook {
  const { clientHook } = require(file) as { clientHook?: unknown };
  if (typeof clientHook !== 'function') throw new Error(`${file} exports no clientHook function: export one (see ClientHook in functions/composition-root.ts)`);
  return clientHook as ClientHook;
}
