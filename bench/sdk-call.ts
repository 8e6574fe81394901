/**
 * CPU of one DynamoDB call through Holdback's DynamoDB client against the local DynamoDB (dynalite on its thread), over
 * every thread of the process: `npx tsx --expose-gc bench/sdk-call.ts [calls]`. Two clients are measured in alternating
 * rounds in one process, so both meet the same load: the SDK client as the SDK builds it with the settings of the
 * composition root (`plain`: the middleware stack cached per operation, no logging) and as the composition root makes
 * it lean (`composed`, functions/composition/lean-client.ts). Each round makes `calls`
 * conditional PutItem of a release-sized item and as many consistent GetItem, eight at a time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LocalDynamo } from '../local/edge/dynamodb';
import { DocumentClient, documentClientConfig } from '../functions/adapters/dynamodb/document-client';
import { leanClient } from '../functions/composition/lean-client';

const TABLE = 'sdk-call';
const CONCURRENCY = 8;

/** CPU ms of each thread of this process (Linux /proc), by thread name and id. */
function threadCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      cpu.set(`${name}:${tid}`, (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {
    // not Linux: the split by thread is left out
  }
  return cpu;
}

async function round(doc: DocumentClient, calls: number, tag: string): Promise<number> {
  let next = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const threadsBefore = threadCpu();
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < calls) {
      const i = next++;
      const pk = `ORDER#${tag}-${i}`;
      await doc.put({
        TableName: TABLE,
        Item: { pk, sk: 'RELEASE#vendor-1', state: 'PLANNED', amount: '200.00', currency: 'INR', vendorId: 'vendor-1', orderId: `${tag}-${i}`, dueAt: '2026-11-29T10:00:00+05:30', version: 1, history: [{ at: '2026-11-26T10:00:00+05:30', state: 'PLANNED', reason: 'planned at payment' }] },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      await doc.get({ TableName: TABLE, Key: { pk, sk: 'RELEASE#vendor-1' }, ConsistentRead: true });
    }
  }));
  const cpu = process.cpuUsage(before);
  if (process.env.SDK_CALL_THREADS) {
    const after = threadCpu();
    const split = [...after].map(([k, v]) => [k, v - (threadsBefore.get(k) ?? 0)] as const).filter(([, v]) => v > 0);
    console.log(tag, split.map(([k, v]) => `${k} ${(v / (2 * calls)).toFixed(3)}`).join(', '), `user ${(cpu.user / 1000 / (2 * calls)).toFixed(3)} system ${(cpu.system / 1000 / (2 * calls)).toFixed(3)}`);
  }
  return (cpu.user + cpu.system) / 1000 / (2 * calls);
}

async function main(): Promise<void> {
  const calls = Number(process.argv[2]) || 2000;
  const dynamo = new LocalDynamo();
  const endpoint = await dynamo.url();
  const base = { region: 'us-east-1', endpoint, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' }, logger: { debug: () => undefined, warn: () => undefined, error: () => undefined } as never };
  const admin = new DynamoDBClient(base);
  await dynamo.createTables(endpoint, 'us-east-1', [{
    TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
  }]);
  admin.destroy();
  const plainClient = new DynamoDBClient(documentClientConfig(base));
  const composedClient = leanClient(new DynamoDBClient(documentClientConfig(base)));
  const clients = { plain: new DocumentClient(plainClient), composed: new DocumentClient(composedClient) };
  const results: Record<string, number[]> = { plain: [], composed: [] };
  // A warm-up round each (JIT), then alternating rounds.
  for (const [name, doc] of Object.entries(clients)) await round(doc, 300, `warm-${name}`);
  for (let r = 0; r < 6; r += 1) {
    for (const [name, doc] of Object.entries(clients)) results[name].push(await round(doc, calls, `${name}-${r}`));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [name, ms] of Object.entries(results)) {
    console.log(`${name}: ${median(ms).toFixed(3)} ms of CPU a call (median of ${ms.map((m) => m.toFixed(3)).join(', ')})`);
  }
  plainClient.destroy();
  composedClient.destroy();
  await dynamo.close();
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
