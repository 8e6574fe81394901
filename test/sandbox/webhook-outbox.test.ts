/**
 * The sandbox's webhooks are an outbox (issue 15): a receiver that is down (Holdback starting, or killed) gets them
 * when it is back, past the first quick retries; a stop leaves them PENDING in the kept state and the next start
 * sends them, to the merchant's URL as it is then.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../../sandbox/app';
import { createState } from '../../sandbox/state';
import { loadState } from '../../sandbox/persistence';
import { pollUntil as until } from '../infra/holdback-process';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A receiver answering 200 on a port of its own, recording each body. */
async function receiver(port = 0): Promise<{ server: Server; url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; });
    req.on('end', () => { received.push(body); res.writeHead(200).end('ok'); });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${bound}/webhooks/gateway`, received };
}

/** A port nothing listens on right now. */
async function closedPort(): Promise<number> {
  const probe = await receiver();
  const port = Number(new URL(probe.url).port);
  await new Promise((resolve) => probe.server.close(resolve));
  return port;
}

test('a receiver that is down past the quick retries still gets the webhook once it listens (resume sends it at once)', async () => {
  const port = await closedPort();
  const sandbox = await createSandbox({ port: 0 });
  try {
    const delivery = sandbox.webhooks.send(`http://127.0.0.1:${port}/webhooks/gateway`, 'PAYMENT_SUCCESS_WEBHOOK', { order: { order_id: 'o-late' } });
    // The quick tries (now, after 250 ms and 1 s) fail: the delivery waits for a later try, still PENDING.
    const afterQuick = await delivery;
    expect(afterQuick).toMatchObject({ status: 'PENDING', attempts: 3 });
    expect(afterQuick.last_error).toContain('ECONNREFUSED');
    // Waiting minutes for its next try does not hold idle().
    await sandbox.webhooks.idle();
    const up = await receiver(port);
    try {
      sandbox.webhooks.resume();
      await until('the webhook delivered', () => up.received.length === 1);
      await sandbox.webhooks.idle();
      expect(sandbox.state.webhooks[0]).toMatchObject({ status: 'DELIVERED', attempts: 4, last_status_code: 200 });
      expect(JSON.parse(up.received[0])).toMatchObject({ type: 'PAYMENT_SUCCESS_WEBHOOK', data: { order: { order_id: 'o-late' } } });
    } finally {
      await new Promise((resolve) => up.server.close(resolve));
    }
  } finally {
    await sandbox.close();
  }
});

test('a stop leaves an undelivered webhook PENDING in the kept state; the next start sends it to the merchant URL of then', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-sandbox-outbox-'));
  folders.push(folder);
  const first = await createSandbox({ port: 0, dataFolder: folder, webhooks: { retryDelaysMs: [], maxAttempts: 100 } });
  first.state.merchant.webhookUrl = `http://127.0.0.1:${await closedPort()}/webhooks/gateway`;
  const sent = await first.webhooks.send(first.state.merchant.webhookUrl, 'VENDOR_SETTLEMENT_SUCCESS', { settlement: { order_id: 'o-kept' } }, true);
  expect(sent).toMatchObject({ status: 'PENDING', attempts: 1, merchant: true });
  await first.close();

  const up = await receiver();
  const second = await createSandbox({ port: 0, dataFolder: folder });
  try {
    expect(second.state.webhooks).toEqual([expect.objectContaining({ id: sent.id, status: 'PENDING', attempts: 1 })]);
    // Holdback listens elsewhere after its restart: the merchant's URL of now is where it goes.
    second.state.merchant.webhookUrl = up.url;
    expect(second.resume().webhooks).toBe(1);
    await until('the kept webhook delivered', () => up.received.length === 1);
    await second.webhooks.idle();
    expect(second.state.webhooks[0]).toMatchObject({ status: 'DELIVERED', attempts: 2, url: up.url });
    expect(JSON.parse(up.received[0])).toMatchObject({ type: 'VENDOR_SETTLEMENT_SUCCESS', data: { settlement: { order_id: 'o-kept' } } });
  } finally {
    await second.close();
    await new Promise((resolve) => up.server.close(resolve));
  }
});

test('what a timer changes (no request behind it) reaches the data folder by itself, without a stop: a kill after it keeps it', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-sandbox-timer-save-'));
  folders.push(folder);
  const sandbox = await createSandbox({ port: 0, dataFolder: folder, webhooks: { retryDelaysMs: [], maxAttempts: 100 } });
  try {
    // A delivery that fails is recorded by the sender, not by a request: only the periodic save writes it.
    const sent = await sandbox.webhooks.send(`http://127.0.0.1:${await closedPort()}/webhooks/gateway`, 'PAYMENT_SUCCESS_WEBHOOK', { order: { order_id: 'o-timer' } });
    expect(sent).toMatchObject({ status: 'PENDING', attempts: 1 });
    // Read the folder as the next start would (the running sandbox is not stopped: as if killed after this point).
    const onDisk = () => {
      const next = createState();
      loadState(next, folder);
      return next.webhooks.find((w) => w.id === sent.id);
    };
    await until('the timer-made record on disk', () => onDisk()?.status === 'PENDING');
    // The record as the sender keeps it (its later tries counted in it too), the order's body in it.
    expect(onDisk()).toMatchObject({ id: sent.id, status: 'PENDING', type: 'PAYMENT_SUCCESS_WEBHOOK' });
    expect(JSON.parse(onDisk()!.body)).toMatchObject({ data: { order: { order_id: 'o-timer' } } });
  } finally {
    await sandbox.close();
  }
});
