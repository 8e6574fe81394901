/** The API handler served over loopback HTTP (createApiServer on port 0), with a fresh fake world behind it for each test. */
import type { Dependencies } from '../../functions/application/ports';
import { makeApiHandler } from '../../functions/handlers/api-functions';
import { createApiServer, type ApiServer } from '../../local/api-server';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';

export interface LiveApi {
  /** The current test's world (replaced before each test). */
  world: FakeWorld;
  /** Base URL of the server, e.g. "http://127.0.0.1:41234". */
  url: string;
  /** The dependencies the handler built (the world's, copied in before each test): what a test changes for the API. */
  deps: Dependencies;
  /** One request alone (a body that is not text is sent as JSON): its status, headers and parsed body (null when empty). */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
  /**
   * One request, then the jobs function runs the job it started and the release function consumes whatever was
   * enqueued, as SQS would: what is in force once the request's work is done.
   */
  settled(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Registers the hooks of a describe block or file: one server for all its tests, closed after them. The handler builds
 * its dependencies once (as at a cold start); each test swaps a fresh world in behind them.
 */
export function serveApiOverFakes(start = '2022-12-02T16:05:00+05:30'): LiveApi {
  const live = {} as Dependencies;
  const api = { deps: live } as LiveApi;
  api.request = async (method, path, body, headers = {}) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  api.settled = async (method, path, body) => {
    const answer = await api.request(method, path, body);
    await api.world.runJobs();
    await api.world.deliverQueued();
    return answer;
  };
  let server: ApiServer;
  beforeAll(async () => {
    server = await createApiServer({ port: 0, handler: makeApiHandler(() => live) });
    api.url = server.url;
  });
  afterAll(() => server.close());
  beforeEach(() => {
    api.world = fakeWorld(start);
    for (const key of Object.keys(live)) delete (live as unknown as Record<string, unknown>)[key];
    Object.assign(live, api.world.deps);
  });
  return api;
}
