/**
 * The local servers keep an idle kept-alive connection past Node's 5 s default (local/edge/keep-alive.ts): a client
 * that pauses longer than that between two calls reuses its socket instead of racing the server's close into
 * ECONNRESET (seen under load as a failed ListObjectsV2 in the audit copy's tests).
 */
import { Agent, request } from 'node:http';
import { startLocalS3 } from '../../../local/edge/s3';
import { LOCAL_KEEP_ALIVE_MS } from '../../../local/edge/keep-alive';

function get(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/kept?list-type=2`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('an idle kept-alive connection to the local S3 outlives 5 s: the next call travels the same socket', async () => {
  expect(LOCAL_KEEP_ALIVE_MS).toBeGreaterThanOrEqual(600_000);
  const local = await startLocalS3({ kept: { writeOnce: false } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    expect(await get(agent, local.url)).toBe(200);
    // Longer than Node's default keepAliveTimeout (5 s), after which the server would have closed the socket.
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    expect(await get(agent, local.url)).toBe(200);
    expect(local.connections()).toBe(1);
  } finally {
    agent.destroy();
    await local.close();
  }
}, 30_000);
