/**
 * The stack's own event bus (contract section 2): only the principals the deploy names may put the order events
 * Holdback acts on, and each of the stack's roles may put only what it emits (contract section 3, and the webhooks'
 * republished order.paid). Two stacks never share a bus, so neither acts on the other's events.
 */
import { Lazy, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { HOLDBACK_DETAIL_TYPES, HOLDBACK_EVENT_SOURCE } from '../functions/definitions/routing';
import { stackScopedName } from './stack-scoped-name';

export { HOLDBACK_DETAIL_TYPES };

/** An IAM role or user ARN, or a 12-digit account id (another account's producers). */
const PRINCIPAL_ARN = /^arn:aws(-[a-z]+)*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;
const ACCOUNT_ID = /^\d{12}$/;

/** Checks one producer, naming it and what to send when it does not fit. */
export function checkProducer(value: string, key: string): string {
  if (PRINCIPAL_ARN.test(value) || ACCOUNT_ID.test(value)) return value;
  throw new Error(
    `context ${key} names ${JSON.stringify(value)}, which is neither an IAM role or user ARN nor a 12-digit account id; ` +
    `send e.g. -c '${key}=["arn:aws:iam::123456789012:role/marketplace-backend"]'`,
  );
}

export interface EventIntakeProps {
  /** The bus's name. @default `<stack>-events` */
  readonly busName?: string;
  /** The marketplace's order event source (the rules match it). */
  readonly orderEventSource: string;
  /** IAM role or user ARNs, or other accounts' ids, that may put order events; none: nothing outside the stack may. */
  readonly producers: readonly string[];
}

export class EventIntake extends Construct {
  readonly bus: events.EventBus;
  readonly producers: readonly string[];
  private readonly orderEventSource: string;
  /** The stack's roles that republish order events (the webhooks' order.paid): the bus policy lets them through too. */
  private readonly republishers: iam.IRole[] = [];
  /** Every role of the stack that puts events: only they may put source `holdback`. */
  private readonly emitters: iam.IRole[] = [];

  constructor(scope: Construct, id: string, props: EventIntakeProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (props.busName === 'default') {
      throw new Error("context holdback:eventBusName is \"default\": the default bus lets every role of the account put order events; send another name, or leave it unset for the stack's own bus (<stack>-events)");
    }
    for (const producer of props.producers) {
      if (ACCOUNT_ID.test(producer) && !Token.isUnresolved(stack.account) && producer === stack.account) {
        throw new Error(`context holdback:eventProducers names this stack's own account ${producer}, which would let every role in it release money; send the producing role's ARN instead`);
      }
    }
    this.producers = props.producers;
    this.orderEventSource = props.orderEventSource;
    this.bus = new events.EventBus(this, 'Bus', { eventBusName: props.busName ?? stackScopedName(this, 'events') });
    const arns = props.producers.filter((p) => !ACCOUNT_ID.test(p));
    const accounts = props.producers.filter((p) => ACCOUNT_ID.test(p));
    if (props.producers.length > 0) {
      // Another account's producers need the bus's allow; this account's also need an IAM allow (the Backend policy).
      this.bus.addToResourcePolicy(new iam.PolicyStatement({
        sid: 'NamedProducersPutOrderEvents',
        principals: [...arns.map((a) => new iam.ArnPrincipal(a)), ...accounts.map((a) => new iam.AccountPrincipal(a))],
        actions: ['events:PutEvents'],
        resources: [this.bus.eventBusArn],
        conditions: { StringEquals: { 'events:source': props.orderEventSource } },
      }));
    }
    // An explicit deny outweighs any IAM allow, this account's included (a role with events:PutEvents on *): order
    // events from anyone but the named producers and the stack's republishers are refused by EventBridge itself.
    this.bus.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'OnlyNamedProducersPutOrderEvents',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['events:PutEvents'],
      resources: [this.bus.eventBusArn],
      conditions: {
        StringEquals: { 'events:source': props.orderEventSource },
        ArnNotEquals: { 'aws:PrincipalArn': Lazy.any({ produce: () => [...arns, ...this.republishers.map((r) => r.roleArn)] }) },
        ...(accounts.length > 0 ? { StringNotEquals: { 'aws:PrincipalAccount': accounts } } : {}),
      },
    }));
    // Holdback's own events come from Holdback's roles alone.
    this.bus.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'OnlyHoldbackPutsHoldbackEvents',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['events:PutEvents'],
      resources: [this.bus.eventBusArn],
      conditions: {
        StringEquals: { 'events:source': HOLDBACK_EVENT_SOURCE },
        ArnNotEquals: { 'aws:PrincipalArn': Lazy.any({ produce: () => this.emitters.map((r) => r.roleArn) }) },
      },
    }));
  }

  /**
   * Lets a function's role put exactly what it emits on this bus (functions/definitions/routing.ts EMITTED_EVENTS):
   * Holdback's detail types it emits under source `holdback`, and the order events it republishes under the
   * marketplace's source; nothing else, on no other bus. A role that emits nothing gets no PutEvents at all.
   */
  grantEmit(role: iam.IRole, emits: { readonly holdback: readonly string[]; readonly order: readonly string[] }): void {
    if (emits.holdback.length > 0) {
      this.emitters.push(role);
      role.addToPrincipalPolicy(new iam.PolicyStatement({
        actions: ['events:PutEvents'],
        resources: [this.bus.eventBusArn],
        conditions: { StringEquals: { 'events:source': HOLDBACK_EVENT_SOURCE, 'events:detail-type': [...emits.holdback] } },
      }));
    }
    if (emits.order.length === 0) return;
    this.republishers.push(role);
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['events:PutEvents'],
      resources: [this.bus.eventBusArn],
      conditions: { StringEquals: { 'events:source': this.orderEventSource, 'events:detail-type': [...emits.order] } },
    }));
  }
}
