/** The three managed policies an account hands to people and systems: finance, auditor, and the marketplace backend. */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ROLE_AUDIENCES, ROUTE_AUDIENCES } from '../functions/handlers/routes/audiences';

export interface AccessPoliciesProps {
  readonly httpApi: apigw.IHttpApi;
  readonly bus: events.IEventBus;
  readonly orderEventSource: string;
}

/** `arn:...:execute-api:region:account:apiId/$default/METHOD/path` with each `{param}` as one `*` segment. */
export function routeArn(stack: Stack, apiId: string, method: string, path: string): string {
  const resource = path.replace(/\{[^/]+\}/g, '*');
  return stack.formatArn({ service: 'execute-api', resource: apiId, resourceName: `$default/${method}${resource}` });
}

export class AccessPolicies extends Construct {
  readonly finance: iam.ManagedPolicy;
  readonly auditor: iam.ManagedPolicy;
  readonly backend: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: AccessPoliciesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const routesOf = (audiences: readonly string[]): string[] => ROUTE_AUDIENCES
      .filter((r) => audiences.includes(r.audience))
      .map((r) => routeArn(stack, props.httpApi.apiId, r.method, r.path));
    const apiPolicy = (policyId: string, description: string, audiences: readonly string[]): iam.ManagedPolicy => {
      const policy = new iam.ManagedPolicy(this, policyId, {
        description,
        statements: [new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: routesOf(audiences) })],
      });
      const apiId = stack.getLogicalId(props.httpApi.node.defaultChild as CfnElement);
      for (const route of ROUTE_AUDIENCES.filter((r) => audiences.includes(r.audience) && r.path.includes('{'))) {
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/$default/${route.method}${route.path.replace(/\{[^/]+\}/g, '*')}]`,
          reason: 'Each * stands for one path parameter (an order or vendor id, a console asset) of this one named route; no route is granted by a wildcard.',
        });
      }
      return policy;
    };
    this.finance = apiPolicy('Finance', 'Holdback finance: read everything; change settings and policies (with previews), release, hold, import', ROLE_AUDIENCES.finance);
    this.auditor = apiPolicy('Auditor', 'Holdback auditor: read everything, outcomes and exports, verify the audit log; nothing that changes state', ROLE_AUDIENCES.auditor);
    this.backend = new iam.ManagedPolicy(this, 'Backend', {
      description: `Marketplace backend: put ${props.orderEventSource} events on the Holdback bus, nothing else`,
      statements: [new iam.PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [props.bus.eventBusArn],
        conditions: { StringEquals: { 'events:source': props.orderEventSource } },
      })],
    });
  }
}
