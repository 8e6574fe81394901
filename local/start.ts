/** `npm start`: the embedded default in the foreground, with its addresses and a copy-paste example. */
import { startLocal, type LocalRuntime } from './runtime';
import { defaultDataDir } from './data-folder';
import { watchLaunchers } from './launcher';
import { DEFAULT_CLIENT_SECRET } from '../sandbox/app';
import { parseInstant } from '../functions/domain/dates';
import { JsonLinesLogger } from '../functions/adapters/logging/json-lines-logger';
import type { Logger } from '../functions/application/ports';

export interface StartOptions {
  clock?: string;
  frozen: boolean;
  /** The data folder (default `.holdback/` under the current folder). */
  data?: string;
  /** Empty the data folder first. */
  fresh?: boolean;
  /** Mend a damaged data folder (LevelDB's repair, damaged journal lines dropped) and print what was lost. */
  repair?: boolean;
  /**
   * Work to do on the running stack before its addresses are printed (`--demo` plays a marketplace fortnight into the
   * data folder); its answer, if any, is printed under them.
   */
  prepare?: (runtime: LocalRuntime) => Promise<string | void>;
}

/** Which of Holdback's log lines `npm start` prints (HOLDBACK_LOG_LEVEL): server errors and warnings by default. */
const LOG_LEVELS = ['info', 'warn', 'error'] as const;
type LogLevel = typeof LOG_LEVELS[number];

function logLevel(): LogLevel {
  const text = process.env.HOLDBACK_LOG_LEVEL;
  if (text === undefined || text === '') return 'warn';
  const level = text.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new Error(`HOLDBACK_LOG_LEVEL is "${text}": send info, warn or error`);
  return level;
}

/**
 * Holdback's own log in the embedded default: JSON lines on stderr (API 500s, failed handlers, lost writes), every
 * known secret scrubbed; lines below the chosen level are dropped.
 */
/**
 * The AWS SDK's Node-version notice, once, where it matters (the process that runs the stack for days), as one line;
 * the SDK's own multi-line warning is silenced in every thread (bin/holdback.ts).
 */
function sdkNodeNote(): string {
  const major = Number(process.versions.node.split('.')[0]);
  return major < 22 ? `\nNote: Node ${process.versions.node}: the pinned AWS SDK runs on it; AWS SDK releases after January 2027 need Node 22 or newer.` : '';
}

export function startLogger(secrets: string[], write = (line: string) => { process.stderr.write(`${line}\n`); }): Logger {
  const lines = new JsonLinesLogger({ secrets, write });
  const from = LOG_LEVELS.indexOf(logLevel());
  const at = (level: LogLevel) => LOG_LEVELS.indexOf(level) >= from;
  return {
    info: (message, fields) => { if (at('info')) lines.info(message, fields); },
    warn: (message, fields) => { if (at('warn')) lines.warn(message, fields); },
    error: (message, fields) => { if (at('error')) lines.error(message, fields); },
  };
}

/** How long a stop waits for work in flight before handing it back (HOLDBACK_STOP_WAIT_MS; default the runtime's). */
function stopWaitMs(): number | undefined {
  const text = process.env.HOLDBACK_STOP_WAIT_MS;
  if (text === undefined || text === '') return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0 || ms > 600_000) {
    throw new Error(`HOLDBACK_STOP_WAIT_MS is "${text}": send a whole number of milliseconds from 0 to 600000`);
  }
  return ms;
}

/** The local parts' own lines: failures to stderr, the rest to stdout; the sandbox's secret never printed. */
function partsLog(secret: string): (line: string) => void {
  return (line) => {
    const clean = secret === '' ? line : line.split(secret).join('[redacted]');
    if (/\bfail/i.test(clean)) process.stderr.write(`${clean}\n`);
    else process.stdout.write(`${clean}\n`);
  };
}

/** The example a new user pastes into a second terminal, in this folder (it uses the installed AWS SDK). */
function exampleScript(urls: { api: string; edge: string; sandbox: string }, clientId: string): string {
  // The secret is read in that terminal, never printed here: only the public default is spelled out.
  return `node --input-type=module <<'EOF'
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
const sandbox = '${urls.sandbox}', api = '${urls.api}';
const gw = { 'content-type': 'application/json', 'x-api-version': '2022-09-01',
  'x-client-id': '${clientId}', 'x-client-secret': process.env.SANDBOX_CLIENT_SECRET ?? '${DEFAULT_CLIENT_SECRET}' };
const post = (url, body, headers = gw, method = 'POST') => fetch(url, { method, headers, body: JSON.stringify(body) }).then((r) => r.json());
const orderId = 'order-' + Date.now();
// 1. The marketplace's vendors and checkout at the gateway (sandbox): an order split between two vendors.
for (const vendor_id of ['vendor-fast', 'vendor-slow'])
  await post(sandbox + '/pg/easy-split/vendors', { vendor_id, name: vendor_id, email: vendor_id + '@example.com', phone: '9999999999', schedule_option: 1, status: 'ACTIVE' });
await post(sandbox + '/pg/orders', { order_id: orderId, order_amount: 1500, order_currency: 'INR',
  customer_details: { customer_id: 'c1', customer_phone: '9999999999' },
  order_splits: [{ vendor_id: 'vendor-fast', amount: 1000 }, { vendor_id: 'vendor-slow', amount: 500 }] });
// 2. Finance's policies in Holdback: one vendor released at once, the other three days after payment. Set before the
//    payment: the gateway's payment webhook tells Holdback of it at once, and an order keeps the policies it was paid under.
const json = { 'content-type': 'application/json' };
await post(api + '/vendors/vendor-fast/policy', { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'you', reason: 'example' }, json, 'PUT');
await post(api + '/vendors/vendor-slow/policy', { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'you', reason: 'example' }, json, 'PUT');
const { now } = await fetch('${urls.edge}/_local/clock').then((r) => r.json());
await post(sandbox + '/_sandbox/orders/' + orderId + '/pay', { payment_time: now });
// 3. The marketplace backend tells Holdback, with its own AWS SDK.
const events = new EventBridgeClient({ endpoint: '${urls.edge}', region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
await events.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid',
  Detail: JSON.stringify({ orderId, transactionTime: now, vendors: [{ vendorId: 'vendor-fast', amount: 1000 }, { vendorId: 'vendor-slow', amount: 500 }] }) }] }));
// 4. What Holdback did, and what the gateway (sandbox) holds now.
await new Promise((r) => setTimeout(r, 1500));
console.log(JSON.stringify(await fetch(api + '/orders/' + orderId).then((r) => r.json()), null, 2));
console.log(JSON.stringify(await fetch(sandbox + '/pg/easy-split/orders/' + orderId, { headers: gw }).then((r) => r.json()), null, 2));
EOF`;
}

export async function runStart(opts: StartOptions): Promise<void> {
  const clockStart = opts.clock === undefined ? undefined : parseInstant(opts.clock, '--clock').toJSDate();
  const secret = process.env.SANDBOX_CLIENT_SECRET ?? DEFAULT_CLIENT_SECRET;
  const log = partsLog(secret);
  const runtime = await startLocal({
    clockStart,
    frozen: opts.frozen,
    dataDir: opts.data ?? defaultDataDir(),
    fresh: opts.fresh ?? false,
    repair: opts.repair ?? false,
    log,
    logger: startLogger([secret]),
    drainMs: stopWaitMs(),
  });
  let prepared: string | void = undefined;
  try {
    prepared = await opts.prepare?.(runtime);
  } catch (error) {
    await runtime.close().catch(() => undefined);
    throw error;
  }
  const urls = { api: runtime.api.url, edge: runtime.edge.url, sandbox: runtime.sandbox.url };
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  const secretNote = clientSecret === DEFAULT_CLIENT_SECRET
    ? ''
    : '\n(The sandbox\'s client secret comes from SANDBOX_CLIENT_SECRET and is not shown: set it in that terminal too.)';
  console.log(`Holdback is running (embedded default), clock at ${runtime.clock.now().setZone('Asia/Kolkata').toISO()}${runtime.clock.frozen ? ' (frozen)' : ''}
  Data folder       ${runtime.dataFolder?.root}   (kept across restarts; --data DIR for another, --fresh to empty it)

  Holdback API      ${urls.api}        (GET /health, /settings, /vendors/{id}/policy, /orders/{id}, POST /predictions ...)
  Web console       ${urls.api}/console   (finance and auditors: open it in a browser)
  Local AWS edge    ${urls.edge}        (DynamoDB, EventBridge PutEvents, EventBridge Scheduler, SQS, /_local/clock)
  Gateway sandbox   ${urls.sandbox}        (base_url ${urls.sandbox}/pg, vendor_base_url ${urls.sandbox}; client id ${clientId})

Send an order.paid with the AWS SDK: paste this in another terminal, in this folder:${secretNote}

${exampleScript(urls, clientId)}

Move time: curl -s -XPOST ${urls.edge}/_local/clock -H 'content-type: application/json' -d '{"advance":"P3D"}' ; then GET ${urls.api}/orders/<orderId> again.
Ctrl-C (or SIGTERM) stops everything cleanly; what is kept carries on at the next start.${sdkNodeNote()}${prepared ? `\n\n${prepared}` : ''}`);
  let stopping = false;
  const stop = (why: string): void => {
    // A Ctrl-C reaches every process of the terminal's group (npm, tsx, this one), and some relay it again: one stop.
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping (servers close, work in flight finishes or is handed back)`);
    runtime.close().then(
      () => {
        log('stopped: every port closed, state saved');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  watchLaunchers((pid) => stop(`the process that launched this one (${pid}) has exited`));
}
