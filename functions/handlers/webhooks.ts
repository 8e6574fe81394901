/** Flow: the gateway's webhook on a Lambda function URL (payload 2.0) → its one route; every other path refused. */
import middy from '@middy/core';
import { GATEWAY_WEBHOOK_PATH } from '../definitions/routing';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/webhooks';
import { HttpError, jsonErrors, type ApiEvent, type ApiResult } from './http';
import { lambdaMetrics, handlerDependencies, observed, type HandlerMetrics } from './observability';
import { GATEWAY_WEBHOOK_ROUTE } from './routes/gateway-webhook';

/**
 * A function URL has one address and no routes of its own: every path and method reaches this function, with no
 * authentication. So it answers the gateway's webhook alone (whose HMAC signature the use case verifies) and refuses
 * everything else: the IAM-authorised API must never be reachable through the open URL.
 */
function refusedUnlessWebhook(event: ApiEvent): void {
  const method = event.requestContext?.http?.method ?? '';
  const path = event.rawPath ?? '';
  if (path !== GATEWAY_WEBHOOK_PATH && path !== `${GATEWAY_WEBHOOK_PATH}/`) {
    throw new HttpError(404, 'route_not_found', `no route ${method} ${path} at this address: it serves only POST ${GATEWAY_WEBHOOK_PATH}, the gateway's signed webhooks; call the Holdback API at the stack's ApiUrl, signed with SigV4`);
  }
  if (method !== GATEWAY_WEBHOOK_ROUTE.method) {
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${GATEWAY_WEBHOOK_PATH}; the gateway posts its webhooks with POST`, { allow: GATEWAY_WEBHOOK_ROUTE.method });
  }
}

export function makeWebhookHandler(getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<ApiEvent, ApiResult>()
    .use(observed(metrics))
    .use(jsonErrors(async () => (await deps()).logger))
    .handler(async (event) => {
      refusedUnlessWebhook(event);
      return GATEWAY_WEBHOOK_ROUTE.run(event, deps);
    });
}

/** Never sends to the gateway (the release queue's consumer is the one sender); reads the secret to verify signatures. */
export const handler = makeWebhookHandler(awsRuntime('webhooks', composition), lambdaMetrics());
