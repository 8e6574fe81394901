/** The web console for finance and auditors (contract section 6, `GET /console`): its page, its assets and the clock it shows. */
import { CONSOLE_CLOCK, CONSOLE_SECURITY_HEADERS, consoleBundle, type ConsoleBundle } from '../../../console/bundle';
import { GATEWAY_ZONE } from '../../domain/dates';
import { HttpError, json, type ApiResult } from '../http';
import { responses } from '../schema/openapi-parts';
import { text } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import type { ApiRoute } from './route';

/** Only where the console was neither built with the function (the API function's bundling does) nor can be built (no bundler). */
const CONSOLE_UNAVAILABLE = 'console_unavailable: this runtime carries no built console and cannot build one; run `npx holdback console --api-url <this API\'s URL>`.';

async function bundleOrExplain(): Promise<ConsoleBundle> {
  try {
    return await consoleBundle();
  } catch (error) {
    // Neither built with the function (the API function's bundling builds it in) nor buildable here (no bundler).
    throw new HttpError(503, 'console_unavailable', `the console could not be built here (${error instanceof Error ? error.message.split('\n')[0] : 'no bundler'}); run \`npx holdback console --api-url <this API's URL>\` instead`);
  }
}

/**
 * `GET /console` (the page) and `GET /console/{asset}`: the page's content-hashed script and stylesheet, and `clock`,
 * Holdback's time as the page shows it (locally the shared clock that tests and demos move; on AWS the real time).
 */
export const CONSOLE_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console',
    summary: 'The web console for finance and auditors',
    responses: responses({ 200: { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } }, { 503: CONSOLE_UNAVAILABLE }),
    handle: async () => ({
      statusCode: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...CONSOLE_SECURITY_HEADERS },
      body: (await bundleOrExplain()).html,
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/console/{asset}',
    summary: "One of the console's bundled assets (script, style)",
    params: { asset: { ...text('A hashed script or stylesheet name from the page, or "clock" (Holdback\'s time).'), example: 'clock' } },
    responses: responses({ 200: { description: 'The asset.', content: { 'application/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object', required: ['now'], properties: { now: { type: 'string', format: 'date-time', description: "clock: Holdback's time (locally the shared clock), ISO 8601 in India time (+05:30)." } } } } } } }, { 404: 'No such asset.', 503: CONSOLE_UNAVAILABLE }),
    handle: async ({ params }, deps): Promise<ApiResult> => {
      const name = params.asset ?? '';
      if (name === CONSOLE_CLOCK) {
        return json(200, { now: (await deps()).clock.now().toDateTime().setZone(GATEWAY_ZONE).toISO() }, { 'cache-control': 'no-store' });
      }
      const asset = (await bundleOrExplain()).assets.get(name);
      if (!asset) throw new HttpError(404, 'not_found', `console asset ${JSON.stringify(name)} does not exist; reload /console for the current ones`);
      return {
        statusCode: 200,
        headers: { 'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable', ...CONSOLE_SECURITY_HEADERS },
        body: asset.body.toString('base64'),
        isBase64Encoded: true,
      };
    },
  }),
];
