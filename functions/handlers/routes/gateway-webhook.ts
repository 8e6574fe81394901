/** The gateway's signed webhook route: served by the API locally and, on AWS, by the webhooks function's URL alone. */
import { GATEWAY_WEBHOOK_PATH } from '../../definitions/routing';
import { handleGatewayWebhook } from '../../application/releases/handle-gateway-webhook';
import { json, rawBodyOf, type ApiEvent } from '../http';
import { ok, responses } from '../schema/openapi-parts';
import { defineRoute } from '../schema/route-schema';

/** POST /webhooks/gateway: the use case verifies the HMAC signature on the raw body before anything else. */
export const GATEWAY_WEBHOOK_ROUTE = defineRoute({
  method: 'POST',
  path: GATEWAY_WEBHOOK_PATH,
  summary: "The gateway's webhooks (payments, vendor settlements), verified by its signature",
  description: 'Locally served here with no other authorisation. On AWS the gateway posts to the stack output `WebhookUrl` '
    + '(the webhooks function\'s Lambda function URL, which answers this route alone: 404 on any other path, 405 on another '
    + 'method); this route of the HTTP API needs IAM (SigV4) like every other. A settlement that matches no release (unknown '
    + 'order or vendor) is answered 200 {action: "ignored"} and listed in GET /rejected-events with the reason.',
  security: [],
  otherBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
  responses: responses({ 200: ok('What was done with it.', { type: 'object', additionalProperties: true }) }, { 400: 'Unreadable body.', 401: 'Bad or stale signature.' }),
  handle: async ({ event }, deps) => {
    const result = await handleGatewayWebhook(await deps(), { headers: lowerCased(event.headers), rawBody: rawBodyOf(event) });
    return json(200, result);
  },
});

function lowerCased(headers: ApiEvent['headers']): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
