/** The API handler served over loopback HTTP (createApiServer on port 0), with a fresh fake world behind it for each test. */
import type { Dependencies } from '../../functions/application/ports';
import { makeApiHandler } from '../../functions/handlers/api';
import { createApiServer, type ApiServer } from '../../local/api-server';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';

export interface LiveApi {
  /** The current test's world (replaced before each test). */
  world: FakeWorld;
  /** Base URL of the server, e.g. "http://127.0.0.1:41234". */
  url: string;
  /** The dependencies the handler built (the world's, copied in before each test): what a test changes for the API. */
  deps: Dependencies;
}

/**
 * Registers the hooks of a describe block or file: one server for all its tests, closed after them. The handler builds
 * its dependencies once (as at a cold start); each test swaps a fresh world in behind them.
 */
export function serveApiOverFakes(start = '2022-12-02T16:05:00+05:30'): LiveApi {
  const live = {} as Dependencies;
  const api = { deps: live } as LiveApi;
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
