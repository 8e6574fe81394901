/** Holdback's command line: start the embedded default, play the demo, run the benchmark, or start the sandbox alone. */
import { parseArgs } from 'node:util';
import { API_USAGE } from './api-commands';

const USAGE = `usage: holdback <command> [options]

commands:
  start     start the local edge (4566), the Holdback API (4000) and the gateway sandbox (4010) in one process
            --clock <ISO instant>   start the shared clock at that instant (it runs forward unless --frozen)
            --frozen                keep the clock still; move it with POST /_local/clock
            --data <folder>         keep the state in that folder (default .holdback/ here); a restart carries on from it
            --fresh                 empty the data folder first
            --repair                start from a damaged data folder: keep what its files still hold, print what was lost
            --demo                  first play a marketplace fortnight into an empty data folder (orders, deliveries,
                                    disputes, a cancellation, a held vendor, manual releases, settlements, an import)
  demo      play a marketplace week on the clock and print a table per vendor
  bench     run the benchmark and write bench/results.json
  sandbox   start the gateway sandbox alone (4010)
  audit verify --file <export.ndjson> (--public-keys <keys.json> | --public-key <key.pem>) [--partial] [--json]
            check a whole export of GET /audit/export offline (no AWS credentials); exit 1 with the first broken link;
            keys.json is GET /audit/public-keys; --partial checks a time range's links only (it cannot prove no deletion)
  audit prove <orderId> [--public-keys <keys.json>] [--api-url <URL>] [--json]
            fetch the order's proof (GET /audit/proof) and check it here: its records' chain, the inclusion path of
            its head in a checkpoint's Merkle root, and that checkpoint's signature under the key its keyId names
  console   the web console on loopback for Holdback on AWS, its calls signed with your AWS credentials (SigV4)
            --api-url <URL>   the API's base URL, e.g. https://abc123.execute-api.ap-south-1.amazonaws.com
            --region <name>   when the URL does not name it (a custom domain)
            --port <n>        loopback port (default 4001)

${API_USAGE}
`;

// The pinned AWS SDK runs on Node 20; its notice that releases after January 2027 need Node 22 is in the README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
      const { values } = parseArgs({
        args: rest,
        options: { clock: { type: 'string' }, frozen: { type: 'boolean' }, data: { type: 'string' }, fresh: { type: 'boolean' }, repair: { type: 'boolean' }, demo: { type: 'boolean' } },
      });
      const { runStart } = await import('../local/start');
      let clock = values.clock;
      let prepare: Parameters<typeof runStart>[0]['prepare'];
      if (values.demo && values.clock !== undefined) {
        process.stderr.write('--demo sets the clock itself (the fortnight starts 2022-11-21 09:00 IST): leave out --clock\n');
        process.exitCode = 2;
        return;
      }
      if (values.demo) {
        const { dataFolderPaths, defaultDataDir } = await import('../local/data-folder');
        const { demoPlan, demoPrepare, DemoFolderNotEmpty, FORTNIGHT_START } = await import('./demo-fortnight');
        try {
          const plan = demoPlan(dataFolderPaths(values.data ?? defaultDataDir()), values.fresh ?? false);
          if (plan === 'play') clock ??= FORTNIGHT_START;
          prepare = demoPrepare(plan);
        } catch (error) {
          if (!(error instanceof DemoFolderNotEmpty)) throw error;
          process.stderr.write(`${error.message}\n`);
          process.exitCode = 2;
          return;
        }
      }
      await runStart({ clock, frozen: values.frozen ?? false, data: values.data, fresh: values.fresh ?? false, repair: values.repair ?? false, prepare });
      return;
    }
    case 'demo': {
      const { runDemo } = await import('./demo');
      await runDemo();
      return;
    }
    case 'bench': {
      const { runBench } = await import('../bench/run');
      await runBench();
      return;
    }
    case 'sandbox': {
      const { runSandbox } = await import('../sandbox/main');
      await runSandbox();
      return;
    }
    case 'console': {
      const { values } = parseArgs({ args: rest, options: { 'api-url': { type: 'string' }, region: { type: 'string' }, port: { type: 'string' } } });
      const { runConsole } = await import('./console-server');
      await runConsole({ apiUrl: values['api-url'], region: values.region, port: values.port });
      return;
    }
    case 'audit': {
      const [sub, ...args] = rest;
      if (sub === 'prove') {
        const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'public-keys': { type: 'string' }, 'api-url': { type: 'string' }, region: { type: 'string' }, json: { type: 'boolean' } } });
        const { runAuditProve } = await import('./audit-prove');
        const { UsageError } = await import('./api-commands');
        try {
          process.exitCode = await runAuditProve({ orderId: positionals[0], apiUrl: values['api-url'], region: values.region, publicKeys: values['public-keys'], json: values.json },
            (t) => process.stdout.write(t), (t) => process.stderr.write(t));
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          process.stderr.write(`${error.message}
`);
          process.exitCode = 2;
        }
        return;
      }
      // Without --file it asks the API (GET /audit/verify, /audit/export); with it (`--file F` or `--file=F`), it checks
      // an export offline.
      if (!args.some((arg) => arg === '--file' || arg.startsWith('--file='))) {
        process.exitCode = await runApi(argv);
        return;
      }
      if (sub !== 'verify') {
        process.stderr.write(`unknown audit command "${sub ?? ''}"; use: holdback audit verify --file F --public-keys K, or holdback audit prove <orderId>\n`);
        process.exitCode = 2;
        return;
      }
      const { values } = parseArgs({ args, options: { file: { type: 'string' }, 'public-key': { type: 'string' }, 'public-keys': { type: 'string' }, partial: { type: 'boolean' }, json: { type: 'boolean' } } });
      const { runAuditVerify, UsageError } = await import('./audit-verify');
      try {
        process.exitCode = await runAuditVerify({ file: values.file, publicKey: values['public-key'], publicKeys: values['public-keys'], partial: values.partial, json: values.json });
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 2;
      }
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return;
    default:
      if (API_COMMANDS.has(command)) {
        process.exitCode = await runApi(argv);
        return;
      }
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

const API_COMMANDS = new Set(['settings', 'policy', 'vendors', 'order', 'timeline', 'outcomes', 'forecast', 'release', 'retry', 'hold', 'unhold', 'import', 'accuracy', 'predict']);

async function runApi(argv: string[]): Promise<number> {
  const { runApiCommand } = await import('./api-commands');
  return runApiCommand(argv, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  // A wrong command line (an unknown flag, named in the message) is 2, as for the API commands.
  process.exitCode = String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS') ? 2 : 1;
});
