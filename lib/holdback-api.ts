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
  /** The api function: it routes every path itself (functions/handlers/api.ts) and answers unknown ones with 404. */
  readonly handler: HoldbackFunction;
}

/**
 * Requests per second (steady, burst) for the whole API; the api function's reserved concurrency keeps a burst from
 * starving order events and the sweep.
 */
export const API_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

export class HoldbackApi extends Construct {
  readonly httpApi: apigw.HttpApi;

  constructor(scope: Construct, id: string, props: HoldbackApiProps) {
    super(scope, id);
    const integration = new HttpLambdaIntegration('Handler', props.handler.function);
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
    // One greedy route: the function's router owns the paths, so new API routes need no infrastructure change.
    this.httpApi.addRoutes({ path: '/{proxy+}', methods: [apigw.HttpMethod.ANY], integration });
  }

  get url(): string {
    return this.httpApi.apiEndpoint;
  }
}
