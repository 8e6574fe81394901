/** The gateway's webhooks on the webhooks function's own Lambda function URL: open, verified by their HMAC signature. */
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { GATEWAY_WEBHOOK_PATH } from '../functions/definitions/routing';
import type { HoldbackFunction } from './holdback-function';

export interface GatewayWebhooksProps {
  /** The webhooks function (functions/handlers/webhooks.ts): it answers POST GATEWAY_WEBHOOK_PATH and refuses every other path. */
  readonly handler: HoldbackFunction;
}

/**
 * A function URL rather than an API Gateway route: the gateway cannot sign AWS requests, so the route would be open
 * either way, and a function URL request costs nothing beyond the invocation ($1 per million on an HTTP API, three
 * webhooks per order). The URL is open (auth NONE) and safe so: the handler answers only POST GATEWAY_WEBHOOK_PATH
 * (any other path 404, so the IAM-authorised API is not reachable here), refuses a body whose HMAC-SHA256 signature
 * with the gateway's client secret does not verify and a timestamp more than 5 minutes off (replays), and the role
 * holds only what a webhook does. What API Gateway's route throttling did, the function's own reserved concurrency
 * does: a flood is answered 429 by Lambda once that many run, and takes no concurrency from the other functions.
 * (cdk-nag's AwsSolutions and Serverless packs have no rule on a function URL's auth type: nothing to acknowledge.)
 */
export class GatewayWebhooks extends Construct {
  readonly functionUrl: lambda.FunctionUrl;
  /** What the gateway's notify/webhook URL must be: the function URL and the webhook path. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: GatewayWebhooksProps) {
    super(scope, id);
    this.functionUrl = new lambda.FunctionUrl(this, 'Url', {
      function: props.handler.function,
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.BUFFERED,
    });
    // The function URL ends with "/".
    this.url = `${this.functionUrl.url}${GATEWAY_WEBHOOK_PATH.slice(1)}`;
  }
}
