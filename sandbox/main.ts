/** Starts the gateway sandbox on its own (`npm run sandbox` calls runSandbox), on SANDBOX_PORT (default 4010). */
import { DEFAULT_CLIENT_SECRET, createSandbox } from './app';

export async function runSandbox(): Promise<void> {
  const sandbox = await createSandbox({ log: (line) => console.log(`[sandbox] ${line}`) });
  const { clientId, clientSecret } = sandbox.context.config;
  console.log(`gateway sandbox: ${sandbox.url}  (base_url ${sandbox.url}/pg, vendor_base_url ${sandbox.url})`);
  console.log(`client id: ${clientId}`);
  // The default secret is the sandbox's public test value, so showing it helps; a secret set by the user is not shown.
  console.log(clientSecret === DEFAULT_CLIENT_SECRET
    ? `client secret: ${clientSecret} (public sandbox default; set SANDBOX_CLIENT_SECRET to change it)`
    : 'client secret: taken from SANDBOX_CLIENT_SECRET (not shown)');
  const stop = (): void => { void sandbox.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  runSandbox().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
