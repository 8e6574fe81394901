/** Holdback's command line: start the embedded default, play the demo, run the benchmark, or start the sandbox alone. */
import { parseArgs } from 'node:util';

const USAGE = `usage: holdback <command> [options]

commands:
  start     start the local edge (4566), the Holdback API (4000) and the gateway sandbox (4010) in one process
            --clock <ISO instant>   start the shared clock at that instant (it runs forward unless --frozen)
            --frozen                keep the clock still; move it with POST /_local/clock
  demo      play a marketplace week on the clock and print a table per vendor
  bench     run the benchmark and write bench/results.json
  sandbox   start the gateway sandbox alone (4010)
`;

// The pinned AWS SDK runs on Node 20; its notice that releases after January 2027 need Node 22 is in the README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
      const { values } = parseArgs({ args: rest, options: { clock: { type: 'string' }, frozen: { type: 'boolean' } } });
      const { runStart } = await import('../local/start');
      await runStart({ clock: values.clock, frozen: values.frozen ?? false });
      return;
    }
    case 'demo': {
      const { runDemo } = await import('../local/demo');
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
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
