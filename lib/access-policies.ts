/**
 * The managed policies an account hands to people and systems: finance, auditor, checker (four eyes: approves or
 * rejects others' pending changes, nothing else that changes state), and the marketplace backend.
 */
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

/** `$default/METHOD/path` with each `{param}` as one `*` segment: the part of a route's ARN after the API id. */
function routeResource(method: string, path: string): string {
  return `$default/${method}${path.replace(/\{[^/]+\}/g, '*')}`;
}

export class AccessPolicies extends Construct {
  readonly finance: iam.ManagedPolicy;
  readonly auditor: iam.ManagedPolicy;
  readonly checker: iam.ManagedPolicy;
  readonly backend: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: AccessPoliciesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const apiId = stack.getLogicalId(props.httpApi.node.defaultChild as CfnElement);
    const apiPolicy = (policyId: string, description: string, audiences: readonly string[]): iam.ManagedPolicy => {
      const routes = ROUTE_AUDIENCES.filter((r) => audiences.includes(r.audience));
      const policy = new iam.ManagedPolicy(this, policyId, {
        description,
        statements: [new iam.PolicyStatement({
          actions: ['execute-api:Invoke'],
          resources: routes.map((r) => stack.formatArn({ service: 'execute-api', resource: props.httpApi.apiId, resourceName: routeResource(r.method, r.path) })),
        })],
      });
      for (const route of routes.filter((r) => r.path.includes('{'))) {
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/${routeResource(route.method, route.path)}]`,
          reason: 'Each * stands for one path parameter (an order or vendor id, a console asset) of this one named route; no route is granted by a wildcard.',
        });
      }
      return policy;
    };
    this.finance = apiPolicy('Finance', 'Holdback finance: read everything; change settings and policies (with previews), release, hold, import', ROLE_AUDIENCES.finance);
    this.auditor = apiPolicy('Auditor', 'Holdback auditor: read everything, outcomes and exports, verify the audit log; nothing that changes state', ROLE_AUDIENCES.auditor);
    this.checker = apiPolicy('Checker', 'Holdback checker (four eyes): read everything; approve or reject pending changes asked for by another principal; change nothing directly', ROLE_AUDIENCES.checker);
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
