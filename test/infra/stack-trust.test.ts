/**
 * Issue 18, production trust, read from the synthesized template: only named producers move money (the stack's own
 * bus and its policy), each role puts only what it emits, and the schedules' dead-letter queue is wired.
 */
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RUNTIME_ENV } from '../../functions/composition-root';
import { METRIC } from '../../functions/definitions/metric-names';
import { DEFAULT_EVENT_SOURCE, HOLDBACK_EVENT_SOURCE } from '../../functions/definitions/routing';
import { LOG_RETENTION_DAYS } from '../../lib/deploy-safety';
import { HOLDBACK_DETAIL_TYPES } from '../../lib/event-intake';
import { CONTEXT_KEYS, holdbackPropsFromContext } from '../../lib/holdback-context';
import { FUNCTION_ROLES, type FunctionRole, HoldbackStack, type HoldbackStackProps } from '../../lib/holdback-stack';
import cdkJson from '../../cdk.json';

const SYNTH_CONTEXT = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };
const ACCOUNT = '123456789012';
const BACKEND = `arn:aws:iam::${ACCOUNT}:role/marketplace-backend`;
const PARTNER_ACCOUNT = '210987654321';

type Json = Record<string, any>;
interface Statement { Sid?: string; Effect: string; Action: string | string[]; Resource: unknown; Principal?: Json; Condition?: Json }

function synth(id: string, props: HoldbackStackProps = {}) {
  const app = new App({ context: SYNTH_CONTEXT });
  const stack = new HoldbackStack(app, id, { env: { account: ACCOUNT, region: 'ap-south-1' }, ...props });
  const resources: Record<string, Json> = Template.fromStack(stack).toJSON().Resources;
  const logicalId = (element: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(element.node.defaultChild as CfnElement);
  const ofType = (type: string): [string, Json][] => Object.entries(resources).filter(([, r]) => r.Type === type);
  /** The bus policy's statements (one AWS::Events::EventBusPolicy each). */
  const busPolicy = (): Statement[] => ofType('AWS::Events::EventBusPolicy').map(([, r]) => {
    expect(r.Properties.EventBusName).toEqual({ Ref: logicalId(stack.intake.bus) });
    return r.Properties.Statement as Statement;
  });
  /** The statements of one function's own role. */
  const statementsOf = (role: FunctionRole): Statement[] => {
    const roleId = logicalId(stack.functions[role].role);
    return ofType('AWS::IAM::Policy').filter(([, r]) => r.Properties.Roles?.some((x: Json) => x.Ref === roleId))
      .flatMap(([, r]) => r.Properties.PolicyDocument.Statement as Statement[]);
  };
  return { stack, resources, logicalId, ofType, busPolicy, statementsOf };
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** A deploy-time value as it resolves: a role's GetAtt stands for that role's ARN. */
function resolveArn(value: unknown, roleArns: Record<string, string>): string {
  if (typeof value === 'string') return value;
  const getAtt = (value as Json)['Fn::GetAtt'];
  if (getAtt && roleArns[getAtt[0]]) return roleArns[getAtt[0]];
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/**
 * IAM's evaluation of the bus's resource policy for one PutEvents entry (the condition operators the policy uses):
 * an explicit deny wins over everything, this account's IAM allow included.
 */
function busDecision(policy: Statement[], request: { principalArn: string; account: string; source: string }, roleArns: Record<string, string>): 'deny' | 'allow' | 'no-opinion' {
  const keys: Record<string, string> = { 'events:source': request.source, 'aws:PrincipalArn': request.principalArn, 'aws:PrincipalAccount': request.account };
  const matches = (statement: Statement): boolean => Object.entries(statement.Condition ?? {}).every(([operator, block]) =>
    Object.entries(block as Json).every(([key, values]) => {
      const wanted = list(values).map((v) => resolveArn(v, roleArns));
      const hit = wanted.includes(keys[key]);
      if (operator === 'StringEquals' || operator === 'ArnEquals') return hit;
      if (operator === 'StringNotEquals' || operator === 'ArnNotEquals') return !hit;
      throw new Error(`operator ${operator} not modelled`);
    }));
  const names = (statement: Statement): boolean => list(statement.Principal?.AWS).some((p) => {
    if (p === '*') return true;
    // A role or user by its ARN, or an account (arn:<partition>:iam::<account>:root, or its id).
    const text = typeof p === 'string' ? p : JSON.stringify(p);
    return text === request.principalArn || text === request.account || text.endsWith(`:iam::${request.account}:root`) || text.includes(`:iam::${request.account}:root"`);
  });
  const applicable = policy.filter((s) => list(s.Action).includes('events:PutEvents') && names(s) && matches(s));
  if (applicable.some((s) => s.Effect === 'Deny')) return 'deny';
  return applicable.some((s) => s.Effect === 'Allow') ? 'allow' : 'no-opinion';
}

describe('event intake: the stack listens on a bus of its own that only named producers may put order events on', () => {
  const production = synth('Holdback', { eventProducers: [BACKEND, PARTNER_ACCOUNT] });
  const roleArns = Object.fromEntries(FUNCTION_ROLES.map((role) => [production.logicalId(production.stack.functions[role].role), `arn:aws:iam::${ACCOUNT}:role/Holdback-${role}`]));

  it("creates the stack's own bus, and every rule is on it (none on the default bus)", () => {
    const buses = production.ofType('AWS::Events::EventBus');
    expect(buses.map(([, r]) => r.Properties.Name)).toEqual(['Holdback-events']);
    const rules = production.ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.EventPattern);
    expect(rules.length).toBeGreaterThan(0);
    for (const [id, rule] of rules) expect([id, rule.Properties.EventBusName]).toEqual([id, { Ref: production.logicalId(production.stack.intake.bus) }]);
  });

  it('two stacks in one account have two buses: neither rule sees the other stack\'s events', () => {
    const staging = synth('Holdback-staging');
    expect(staging.ofType('AWS::Events::EventBus').map(([, r]) => r.Properties.Name)).toEqual(['Holdback-staging-events']);
    for (const [, rule] of staging.ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.EventPattern)) {
      expect(rule.Properties.EventBusName).toEqual({ Ref: staging.logicalId(staging.stack.intake.bus) });
    }
    // Each function publishes to its own stack's bus.
    for (const [, fn] of staging.ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.[RUNTIME_ENV.eventBus])) {
      expect(fn.Properties.Environment.Variables[RUNTIME_ENV.eventBus]).toEqual({ Ref: staging.logicalId(staging.stack.intake.bus) });
    }
  });

  it('a role of this account with events:PutEvents on * is refused order events by the bus policy; the named producers are not', () => {
    const policy = production.busPolicy();
    const anyRole = { principalArn: `arn:aws:iam::${ACCOUNT}:role/some-admin`, account: ACCOUNT, source: DEFAULT_EVENT_SOURCE };
    expect(busDecision(policy, anyRole, roleArns)).toBe('deny');
    // Holdback's other roles (the api, the release function) cannot forge an order event either.
    expect(busDecision(policy, { ...anyRole, principalArn: roleArns[production.logicalId(production.stack.functions.api.role)] }, roleArns)).toBe('deny');
    expect(busDecision(policy, { ...anyRole, principalArn: BACKEND }, roleArns)).toBe('allow');
    expect(busDecision(policy, { principalArn: `arn:aws:iam::${PARTNER_ACCOUNT}:role/orders`, account: PARTNER_ACCOUNT, source: DEFAULT_EVENT_SOURCE }, roleArns)).toBe('allow');
    // The webhooks republish order.paid (their IAM policy limits them to that detail type).
    expect(busDecision(policy, { ...anyRole, principalArn: roleArns[production.logicalId(production.stack.functions.webhooks.role)] }, roleArns)).toBe('no-opinion');
    // Nobody outside the stack may put Holdback's own events; the stack's roles may.
    expect(busDecision(policy, { ...anyRole, source: HOLDBACK_EVENT_SOURCE }, roleArns)).toBe('deny');
    expect(busDecision(policy, { ...anyRole, principalArn: BACKEND, source: HOLDBACK_EVENT_SOURCE }, roleArns)).toBe('deny');
    expect(busDecision(policy, { ...anyRole, principalArn: roleArns[production.logicalId(production.stack.functions.release.role)], source: HOLDBACK_EVENT_SOURCE }, roleArns)).toBe('no-opinion');
  });

  it('with no producers named, nothing outside the stack may put order events, and the output says so', () => {
    const closed = synth('Holdback-closed');
    const arns = Object.fromEntries(FUNCTION_ROLES.map((role) => [closed.logicalId(closed.stack.functions[role].role), `arn:aws:iam::${ACCOUNT}:role/c-${role}`]));
    const policy = closed.busPolicy();
    expect(policy.filter((s) => s.Effect === 'Allow')).toEqual([]);
    expect(busDecision(policy, { principalArn: BACKEND, account: ACCOUNT, source: DEFAULT_EVENT_SOURCE }, arns)).toBe('deny');
    const outputs = Template.fromStack(closed.stack).toJSON().Outputs;
    expect(outputs.EventProducers.Value).toBe('NONE');
    expect(outputs.EventProducers.Description).toMatch(/holdback:eventProducers/);
  });

  it('each function may put exactly the sources and detail types it emits on its own bus, and nothing else', () => {
    const busArn = { 'Fn::GetAtt': [production.logicalId(production.stack.intake.bus), 'Arn'] };
    // Written out here, not read from EMITTED_EVENTS: the release function records the gateway's answers, the webhooks
    // confirm held sends, check settlements and republish payments; the others emit nothing and may put nothing.
    const expected: Record<string, Json[]> = {
      orderEvents: [], sweep: [], api: [], jobs: [], exportJobs: [], apiReads: [], apiJobs: [], apiAudit: [], apiVendors: [], apiPages: [],
      release: [{ 'events:source': HOLDBACK_EVENT_SOURCE, 'events:detail-type': ['vendor.release_applied', 'vendor.release_failed', 'config.drift_detected'] }],
      webhooks: [
        { 'events:source': HOLDBACK_EVENT_SOURCE, 'events:detail-type': ['vendor.release_applied', 'config.drift_detected'] },
        { 'events:source': DEFAULT_EVENT_SOURCE, 'events:detail-type': ['order.paid'] },
      ],
    };
    for (const role of FUNCTION_ROLES) {
      const puts = production.statementsOf(role).filter((s) => list(s.Action).some((a) => a.startsWith('events:')));
      expect([role, puts.flatMap((s) => list(s.Action))]).toEqual([role, puts.map(() => 'events:PutEvents')]);
      for (const s of puts) expect([role, s.Resource]).toEqual([role, busArn]);
      expect([role, puts.map((s) => s.Condition?.StringEquals)]).toEqual([role, expected[role]]);
    }
    // Every detail type of contract section 3 has an emitter.
    expect(new Set(Object.values(expected).flat().flatMap((c) => (c as { 'events:source': string; 'events:detail-type': string[] })['events:source'] === HOLDBACK_EVENT_SOURCE ? (c as { 'events:detail-type': string[] })['events:detail-type'] : [])))
      .toEqual(new Set(HOLDBACK_DETAIL_TYPES));
  });

  it('X-Ray: the per-order functions trace only what arrives sampled (the bill); the API\'s functions, sweep and jobs trace actively', () => {
    const modes = Object.fromEntries(FUNCTION_ROLES.map((role) => {
      const fn = production.ofType('AWS::Lambda::Function').find(([id]) => id === production.logicalId(production.stack.functions[role].function));
      return [role, fn?.[1].Properties.TracingConfig?.Mode];
    }));
    expect(modes).toEqual({ orderEvents: 'PassThrough', release: 'PassThrough', webhooks: 'PassThrough', api: 'Active', apiReads: 'Active', apiJobs: 'Active', apiAudit: 'Active', apiVendors: 'Active', apiPages: 'Active', sweep: 'Active', jobs: 'Active', exportJobs: 'Active' });
  });

  it("logs: JSON, the functions' lines from INFO, Lambda's own START/END/REPORT lines only at WARN (the bill)", () => {
    for (const [id, fn] of production.ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.POWERTOOLS_LOG_LEVEL)) {
      expect([id, fn.Properties.LoggingConfig]).toEqual([id, expect.objectContaining({ LogFormat: 'JSON', SystemLogLevel: 'WARN', ApplicationLogLevel: 'INFO' })]);
    }
  });

  it("a role of the stack that emits nothing is denied source holdback by the bus policy, whatever its IAM policy says", () => {
    const policy = production.busPolicy();
    for (const role of ['api', 'orderEvents', 'sweep', 'jobs'] as const) {
      const principalArn = roleArns[production.logicalId(production.stack.functions[role].role)];
      expect([role, busDecision(policy, { principalArn, account: ACCOUNT, source: HOLDBACK_EVENT_SOURCE }, roleArns)]).toEqual([role, 'deny']);
    }
  });
});

describe('context that does not fit is refused at synth, naming the value and what to pass', () => {
  const nodeWith = (context: Record<string, unknown>) => new App({ context }).node;

  it('producers: a JSON list or comma-separated ARNs and account ids; anything else is named', () => {
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventProducers]: JSON.stringify([BACKEND, PARTNER_ACCOUNT]) })).eventProducers).toEqual([BACKEND, PARTNER_ACCOUNT]);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventProducers]: `${BACKEND}, ${PARTNER_ACCOUNT}` })).eventProducers).toEqual([BACKEND, PARTNER_ACCOUNT]);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventProducers]: 'arn:aws:iam::1234:role/x' })))
      .toThrow(/holdback:eventProducers names "arn:aws:iam::1234:role\/x", which is neither an IAM role or user ARN nor a 12-digit account id; send e.g./);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventProducers]: '["*"]' }))).toThrow(/names "\*"/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventProducers]: '[oops' }))).toThrow(/not a JSON list/);
  });

  it("an unknown region is refused with the region to send", () => {
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.region]: 'ap-south-9' })))
      .toThrow(/holdback:region is "ap-south-9", not an AWS region; send one such as ap-south-1/);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.region]: 'eu-west-1' })).region).toBe('eu-west-1');
  });

  it("a concurrency budget above a new account's limit of 10 is refused with the flag to pass", () => {
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.accountConcurrencyLimit]: 10 })))
      .toThrow(/the account's limit is 10 .*-c holdback:concurrencyBudget=none/);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.accountConcurrencyLimit]: 10, [CONTEXT_KEYS.concurrencyBudget]: 'none' })).concurrencyBudget).toBeNull();
  });

  it("the default bus, or this stack's own account as a producer, is refused: either lets every role of the account move money", () => {
    expect(() => synth('Holdback-d', { eventBusName: 'default' })).toThrow(/holdback:eventBusName is "default".*leave it unset/);
    expect(() => synth('Holdback-o', { eventProducers: [ACCOUNT] })).toThrow(/names this stack's own account 123456789012.*send the producing role's ARN/);
  });
});

describe('failures seen: the release schedules\' dead-letter queue', () => {
  const { stack, ofType, logicalId, resources } = synth('Holdback');

  it('every function that writes schedules is given its ARN, which the composition root passes to every CreateSchedule', () => {
    const dlq = { 'Fn::GetAtt': [logicalId(stack.scheduling.deadLetters.queue), 'Arn'] };
    const withGroup = ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.[RUNTIME_ENV.scheduleGroup]);
    // Every function that builds Dependencies (composition-root.ts requires the group); not the API's pages, which read nothing.
    expect(withGroup.length).toBe(FUNCTION_ROLES.length - 1);
    for (const [id, fn] of withGroup) expect([id, fn.Properties.Environment.Variables[RUNTIME_ENV.scheduleDeadLetterArn]]).toEqual([id, dlq]);
  });

  it("the schedules' execution role may send to it", () => {
    const roleId = logicalId(stack.scheduling.role);
    const dlq = { 'Fn::GetAtt': [logicalId(stack.scheduling.deadLetters.queue), 'Arn'] };
    const sends = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles?.some((x: Json) => x.Ref === roleId))
      .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[])
      .filter((s) => list(s.Action).includes('sqs:SendMessage'))
      .flatMap((s) => list(s.Resource));
    expect(sends).toContainEqual(dlq);
  });
});

describe('failures seen: alarms', () => {
  const { stack, ofType, logicalId, resources } = synth('Holdback');
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const topic = { Ref: logicalId(stack.observability.topic) };
  const alarmsOn = (predicate: (a: Json) => boolean) => alarms.filter(([, a]) => predicate(a.Properties));

  it('releases paused while sends are due: the metric the release function emits, to the topic', () => {
    const paused = alarmsOn((a) => a.MetricName === METRIC.releasesPaused.name);
    expect(paused).toHaveLength(1);
    expect(paused[0][1].Properties).toMatchObject({ Namespace: 'Holdback', Threshold: 1, AlarmActions: [topic] });
  });

  it('order events EventBridge could not deliver: FailedInvocations of every order rule, on its own bus', () => {
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.EventPattern).map(([id]) => id);
    for (const rule of rules) {
      const found = alarmsOn((a) => a.MetricName === 'FailedInvocations' && a.Dimensions.some((d: Json) => d.Name === 'RuleName' && d.Value.Ref === rule));
      expect([rule, found.length]).toEqual([rule, 1]);
      expect(found[0][1].Properties.Dimensions).toContainEqual({ Name: 'EventBusName', Value: { Ref: logicalId(stack.intake.bus) } });
    }
  });

  it("the release queue's age of oldest message, the webhooks' throttles, and every table's throttles", () => {
    expect(alarmsOn((a) => a.MetricName === 'ApproximateAgeOfOldestMessage' && JSON.stringify(a.Dimensions).includes(logicalId(stack.releaseQueue.queue)))).toHaveLength(1);
    expect(alarmsOn((a) => a.MetricName === 'Throttles' && JSON.stringify(a.Dimensions).includes(logicalId(stack.functions.webhooks.function)))).toHaveLength(1);
    for (const table of Object.values(stack.tables)) {
      const id = logicalId(table.table);
      const found = alarmsOn((a) => (a.Metrics ?? []).some((m: Json) => JSON.stringify(m).includes(id) && /ThrottleEvents/.test(JSON.stringify(m))));
      expect([id, found.length]).toEqual([id, 1]);
    }
    for (const [id, alarm] of alarms) expect([id, alarm.Properties.AlarmActions]).toEqual([id, [topic]]);
  });

  it('a deploy without an alarm destination says so in its outputs; with one, names it', () => {
    const outputs = Template.fromStack(stack).toJSON().Outputs;
    expect(outputs.AlarmDestination).toMatchObject({ Value: 'NONE', Description: expect.stringMatching(/^NO ALARM DESTINATION.*holdback:alarmEmail/) });
    const mailed = synth('Holdback-mailed', { alarmEmail: 'ops@example.com' });
    expect(Template.fromStack(mailed.stack).toJSON().Outputs.AlarmDestination.Value).toBe('ops@example.com');
    expect(resources).toBeDefined();
  });
});

describe('every queue, bucket, key, topic and alarm the stack creates is used', () => {
  const { resources } = synth('Holdback');
  const KINDS = ['AWS::SQS::Queue', 'AWS::S3::Bucket', 'AWS::KMS::Key', 'AWS::SNS::Topic', 'AWS::CloudWatch::Alarm'];
  /** Where a reference counts as use: a function's environment, a policy, an event source mapping, a redrive, a target's dead letters, an alarm action. */
  const uses = (resource: Json): unknown[] => {
    switch (resource.Type) {
      case 'AWS::Lambda::Function': return [resource.Properties.Environment, resource.Properties.DeadLetterConfig];
      case 'AWS::IAM::Policy': case 'AWS::IAM::ManagedPolicy': case 'AWS::SQS::QueuePolicy': case 'AWS::SNS::TopicPolicy': return [resource.Properties];
      case 'AWS::Lambda::EventSourceMapping': case 'AWS::Lambda::EventInvokeConfig': return [resource.Properties];
      case 'AWS::SQS::Queue': return [resource.Properties.RedrivePolicy];
      case 'AWS::Events::Rule': return [resource.Properties.Targets];
      case 'AWS::CloudWatch::Alarm': return [resource.Properties.AlarmActions];
      case 'AWS::SNS::Subscription': return [resource.Properties.TopicArn];
      case 'AWS::CloudWatch::Dashboard': return [resource.Properties.DashboardBody];
      default: return [];
    }
  };
  const references = (value: unknown, id: string): boolean => JSON.stringify(value ?? null).includes(`"${id}"`);

  it('each alarm notifies a topic of the stack, and each alarm on a Holdback metric watches one the runtime emits', () => {
    const topics = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SNS::Topic').map(([id]) => id);
    const emitted = Object.values(METRIC).map((m) => m.name);
    for (const [id, alarm] of Object.entries(resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')) {
      expect([id, topics.some((t) => references(alarm.Properties.AlarmActions, t))]).toEqual([id, true]);
      if (alarm.Properties.Namespace === 'Holdback') expect([id, emitted]).toEqual([id, expect.arrayContaining([alarm.Properties.MetricName])]);
    }
  });

  it.each(KINDS.filter((k) => k !== 'AWS::CloudWatch::Alarm'))('%s: each is referenced where the running system uses it', (kind) => {
    const created = Object.entries(resources).filter(([, r]) => r.Type === kind);
    for (const [id] of created) {
      const usedBy = Object.entries(resources).filter(([other, r]) => other !== id && uses(r).some((u) => references(u, id))).map(([other]) => other);
      expect([id, usedBy.length > 0]).toEqual([id, true]);
    }
  });
});

describe('deploys that survive their own failures', () => {
  const { resources, ofType } = synth('Holdback');

  it("the schedule group, named after the stack, is deleted with a failed create or a destroy, so the retry's name is free", () => {
    const groups = ofType('AWS::Scheduler::ScheduleGroup');
    expect(groups.map(([, g]) => [g.Properties.Name, g.DeletionPolicy ?? 'Delete'])).toEqual([['Holdback-holdback-releases', 'Delete']]);
  });

  it('every retained resource with a physical name of its own is removed when its first create fails (nothing named is left to collide)', () => {
    for (const [id, r] of Object.entries(resources).filter(([, x]) => x.DeletionPolicy === 'Retain')) {
      // Tables and the audit log's write-once bucket keep Retain (deletion protection; Object Lock), and CloudFormation
      // names them, so a kept one never collides with the retry's.
      expect([id, ['AWS::DynamoDB::Table', 'AWS::S3::Bucket'].includes(r.Type), r.Properties.TableName ?? r.Properties.BucketName]).toEqual([id, true, undefined]);
    }
    for (const [id, key] of ofType('AWS::KMS::Key')) expect([id, key.DeletionPolicy, key.UpdateReplacePolicy]).toEqual([id, 'RetainExceptOnCreate', 'Retain']);
  });

  it(`logs are kept ${LOG_RETENTION_DAYS} days (the order events row of the retention table) and retained on destroy`, () => {
    const groups = ofType('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(FUNCTION_ROLES.length);
    for (const [id, group] of groups) {
      expect([id, group.Properties.RetentionInDays, group.DeletionPolicy, group.Properties.LogGroupName]).toEqual([id, LOG_RETENTION_DAYS, 'RetainExceptOnCreate', undefined]);
    }
  });
});
