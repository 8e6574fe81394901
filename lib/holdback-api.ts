/** The Holdback API on API Gateway (HTTP API): IAM-authorised on every route (the gateway's webhooks go to a function URL). */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { HoldbackFunction } from './holdback-function';
import { stackScopedName } from './stack-scoped-name';
import { API_ROUTE_TABLE, UNROUTED_FUNCTION, type RouteServer } from '../functions/definitions/api-routing';

/**
 * HTTP API context variables only (the REST API's standard format names some an HTTP API lacks); the caller's ARN
 * says which IAM principal changed settings or policies.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(JSON.stringify({
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  sourceIp: '$context.identity.sourceIp',
  callerArn: '$context.identity.userArn',
  integrationError: '$context.integrationErrorMessage',
}));

export interface HoldbackApiProps {
  /**
   * The function that serves each route of the route table (functions/definitions/api-routing.ts): the API's own and
   * the webhooks function (the gateway's webhook route, IAM-authorised here like every other).
   */
  readonly handlers: Record<RouteServer, HoldbackFunction>;
}

/**
 * Requests per second (steady, burst) for the whole API; the API functions' reserved concurrency keeps a burst from
 * starving order events and the sweep.
 */
export const API_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

export class HoldbackApi extends Construct {
  readonly httpApi: apigw.HttpApi;

  constructor(scope: Construct, id: string, props: HoldbackApiProps) {
    super(scope, id);
    const integrations = new Map<RouteServer, HttpLambdaIntegration>();
    const integrationOf = (server: RouteServer) => {
      let integration = integrations.get(server);
      if (!integration) {
        integration = new HttpLambdaIntegration(`Handler-${server}`, props.handlers[server].function);
        integrations.set(server, integration);
      }
      return integration;
    };
    // The default authorizer applies to every route added later, so a new route is IAM-authorised unless it opts out;
    // none does: the gateway's webhooks, which cannot be SigV4-signed, reach the webhooks function's URL instead.
    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: stackScopedName(this, 'api', 128),
      description: 'Holdback API: settings, vendor policies, order views, outcomes, predictions',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });
    // Each route of the table to the function that serves it, and a greedy catch-all to the pages function, which
    // answers 404 (no route) or 405 (not with this method) from the same table.
    for (const route of API_ROUTE_TABLE) {
      this.httpApi.addRoutes({ path: route.path, methods: [route.method as apigw.HttpMethod], integration: integrationOf(route.serves) });
    }
    this.httpApi.addRoutes({ path: '/{proxy+}', methods: [apigw.HttpMethod.ANY], integration: integrationOf(UNROUTED_FUNCTION) });
  }

  get url(): string {
    return this.httpApi.apiEndpoint;
  }
}
