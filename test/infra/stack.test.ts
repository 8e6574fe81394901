/** The synthesized Holdback stack: tables and rules as tables.ts and routing.ts define them, least-privilege IAM, IAM-only API, the webhook URL, cdk-nag clean. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { AUDIT_TABLE, AUDIT_TABLE_ENV, PREVIEW_EXPIRY_ATTRIBUTE, TABLE_ENV, TABLES, TTL_ATTRIBUTE, type TableName } from '../../functions/definitions/tables';
import { RUNTIME_ENV, readRuntimeConfig } from '../../functions/composition-root';
import { ROUTE_AUDIENCES } from '../../functions/handlers/routes/audiences';
import { API_FUNCTIONS, API_ROUTE_TABLE, UNROUTED_FUNCTION } from '../../functions/definitions/api-routing';
import { METRIC } from '../../functions/definitions/metric-names';
import {
  DEFAULT_EVENT_SOURCE, EXPORT_JOB_QUEUE, GATEWAY_WEBHOOK_PATH, JOB_QUEUE, RELEASE_QUEUE, RELEASE_SCHEDULE_GROUP, SWEEP_SCHEDULE, eventRules,
} from '../../functions/definitions/routing';
import { API_THROTTLE } from '../../lib/holdback-api';
import { CONTEXT_KEYS, holdbackPropsFromContext } from '../../lib/holdback-context';
import { HoldbackFunction } from '../../lib/holdback-function';
import type { StackTableName } from '../../lib/holdback-table';
import {
  DEFAULT_CONCURRENCY_BUDGET, DEFAULT_RETENTION_DAYS, FUNCTION_ROLES, TABLE_ACTIONS, type FunctionRole, HoldbackStack,
} from '../../lib/holdback-stack';
import cdkJson from '../../cdk.json';
import { EXPORT_RETENTION_DAYS } from '../../lib/export-bucket';

/**
 * Skips esbuild (these tests read the template, not the bundles) and turns aws-cdk-lib's built-in CloudFormation
 * schema validation into errors, so that an invalid property fails the synth in beforeAll.
 */
const SYNTH_CONTEXT = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:validateAgainstDefaultRules': true };

type Json = Record<string, any>;
interface Statement { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Json }

let stack: HoldbackStack;
let template: Template;
let resources: Record<string, Json>;

const logicalId = (element: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const getAtt = (element: { node: { defaultChild?: unknown } }) => ({ 'Fn::GetAtt': [logicalId(element), 'Arn'] });
const ofType = (type: string): [string, Json][] => Object.entries(resources).filter(([, r]) => r.Type === type);
/** Holdback's own functions (FUNCTION_ROLES), without the audit archive's copier, which reads none of their configuration. */
/** The functions that build Dependencies from the environment (not the archive copier; not the API's pages, which read nothing: see below). */
const holdbackFunctions = (): [string, Json][] => ofType('AWS::Lambda::Function').filter(([id]) => id !== logicalId(stack.auditArchive.copier.function) && id !== logicalId(stack.functions.apiPages.function));
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Every IAM statement in the template, with where it was found. */
function statements(): { where: string; statement: Statement }[] {
  const found: { where: string; statement: Statement }[] = [];
  for (const [id, r] of Object.entries(resources)) {
    const documents: Json[] = [];
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') documents.push(r.Properties.PolicyDocument);
    if (r.Type === 'AWS::IAM::Role') documents.push(...(r.Properties.Policies ?? []).map((p: Json) => p.PolicyDocument));
    for (const document of documents) for (const statement of document.Statement) found.push({ where: id, statement });
  }
  return found;
}

/** The statements of one function's own role. */
function statementsOf(role: FunctionRole): Statement[] {
  const roleId = logicalId(stack.functions[role].role);
  return statements().filter(({ where }) => resources[where].Properties.Roles?.some((r: Json) => r.Ref === roleId)).map((s) => s.statement);
}

beforeAll(() => {
  const app = new App({ context: SYNTH_CONTEXT });
  stack = new HoldbackStack(app, 'Holdback');
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

describe('DynamoDB tables', () => {
  it('are exactly the tables of tables.ts and the audit log', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', Object.keys(TABLES).length + 1);
  });

  it("the audit log's table is tables.ts's AUDIT_TABLE: retained, deletion-protected, recoverable, never a TTL", () => {
    const audit = resources[logicalId(stack.tables.audit.table)];
    expect(audit.Properties.KeySchema).toEqual(AUDIT_TABLE.keySchema);
    expect(audit.Properties.GlobalSecondaryIndexes).toEqual(AUDIT_TABLE.globalSecondaryIndexes);
    expect(audit.Properties.TimeToLiveSpecification).toBeUndefined();
    expect([audit.DeletionPolicy, audit.Properties.DeletionProtectionEnabled, audit.Properties.PointInTimeRecoverySpecification])
      .toEqual(['Retain', true, { PointInTimeRecoveryEnabled: true }]);
    // Written once, read rarely, kept for ever: Standard-IA (README "The bill" shows the arithmetic).
    expect(audit.Properties.TableClass).toBe('STANDARD_INFREQUENT_ACCESS');
    for (const [id, fn] of holdbackFunctions()) {
      expect([id, fn.Properties.Environment.Variables[AUDIT_TABLE_ENV]]).toEqual([id, { Ref: logicalId(stack.tables.audit.table) }]);
    }
  });

  it.each(Object.keys(TABLES) as TableName[])('%s has the key schema, attributes and indexes of tables.ts', (name) => {
    const definition = TABLES[name];
    const table = resources[logicalId(stack.tables[name].table)];
    expect(table.Properties.KeySchema).toEqual(definition.keySchema);
    const byName = (a: Json, b: Json) => String(a.AttributeName).localeCompare(String(b.AttributeName));
    expect([...table.Properties.AttributeDefinitions].sort(byName)).toEqual([...definition.attributeDefinitions].sort(byName));
    expect(table.Properties.GlobalSecondaryIndexes ?? []).toEqual(definition.globalSecondaryIndexes);
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    // Read and rewritten through a release's life: the Standard class (its requests cost 25% less than Standard-IA's).
    expect(table.Properties.TableClass).toBe('STANDARD');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  it("gives every function every table's name in the variable tables.ts reads", () => {
    for (const [, fn] of holdbackFunctions()) {
      for (const name of Object.keys(TABLES) as TableName[]) {
        expect(fn.Properties.Environment.Variables[TABLE_ENV[name]]).toEqual({ Ref: logicalId(stack.tables[name].table) });
      }
    }
  });
});

describe('DynamoDB grants', () => {
  const forbidden = ['dynamodb:Scan', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream', 'dynamodb:ListStreams'];

  it.each(Object.keys(TABLE_ACTIONS) as FunctionRole[])('%s gets exactly the table actions its code uses, nothing wider', (role) => {
    for (const name of Object.keys(stack.tables) as StackTableName[]) {
      const tableArn = getAtt(stack.tables[name].table);
      const actions = statementsOf(role)
        .filter((s) => s.Effect === 'Allow' && list(s.Resource).some((r) => JSON.stringify(r).includes(JSON.stringify(tableArn))))
        .flatMap((s) => list(s.Action));
      expect([role, name, [...new Set(actions)].sort()]).toEqual([role, name, [...(TABLE_ACTIONS[role][name] ?? [])].sort()]);
      // The audit log alone is scanned (verification, export, the sweep after a quiet spell) and has entries deleted
      // (the sweep clears the pending appends it has written).
      if (name === 'audit') continue;
      for (const action of forbidden) expect([role, name, actions]).not.toEqual([role, name, expect.arrayContaining([action])]);
    }
  });
});

describe('event rules', () => {
  it("are routing.ts's rules, with its patterns, on the stack's own bus, to the handler each names", () => {
    const rules = eventRules(DEFAULT_EVENT_SOURCE);
    template.resourceCountIs('AWS::Events::Rule', rules.length);
    for (const rule of rules) {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: { Ref: logicalId(stack.intake.bus) },
        EventPattern: Match.exact(rule.pattern),
        Targets: [Match.objectLike({
          Arn: getAtt(stack.functions[rule.target].function),
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
          DeadLetterConfig: { Arn: Match.anyValue() },
        })],
      });
    }
  });

  it('dead-letter queues are encrypted and refuse plain HTTP', () => {
    for (const [id, queue] of ofType('AWS::SQS::Queue')) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) => JSON.stringify(p.Properties.Queues).includes(id));
      expect(JSON.stringify(policy?.[1].Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('a named bus, source and existing gateway secret are used when configured; the functions get its ARN, never a value', () => {
    const app = new App({ context: SYNTH_CONTEXT });
    const custom = new HoldbackStack(app, 'Custom', {
      eventBusName: 'marketplace', orderEventSource: 'acme.orders', concurrencyBudget: null, gatewaySecretName: 'holdback/gateway',
    });
    const t = Template.fromStack(custom);
    t.hasResourceProperties('AWS::Events::EventBus', { Name: 'marketplace' });
    const busId = Object.entries(t.findResources('AWS::Events::EventBus'))[0][0];
    t.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: busId },
      EventPattern: Match.exact(eventRules('acme.orders')[0].pattern),
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [RUNTIME_ENV.eventBus]: { Ref: busId }, [RUNTIME_ENV.eventSource]: 'acme.orders' }) },
    });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'Custom-release', ReservedConcurrentExecutions: Match.absent() });
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    // Every function but the archive's copier and the API's pages (which read nothing).
    for (const fn of Object.values(t.findResources('AWS::Lambda::Function')).filter((f) => !String(f.Properties.Description).includes('write-once archive') && !String(f.Properties.Description).includes('the console, the OpenAPI document'))) {
      expect(JSON.stringify(fn.Properties.Environment.Variables[RUNTIME_ENV.gatewaySecretId])).toMatch(/:secret:holdback\/gateway/);
    }
    // The release queue is consumed from the start, whichever secret: releases wait for its credentials, not a deploy.
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', { Enabled: Match.absent() });
  });
});

type Construct = Parameters<typeof logicalId>[0];

/**
 * A queue that drives a function: its event source mapping (batches, bounded concurrency, partial batch failures), the
 * queue's visibility timeout and its redrive to its dead-letter queue, all with the numbers the definitions give.
 */
function expectQueueDrives(
  fn: Construct, queues: { queue: Construct; deadLetters: { queue: Construct } },
  numbers: { batchSize: number; maximumConcurrency: number; visibilityTimeoutSeconds: number; maxReceiveCount: number },
): void {
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: logicalId(fn) },
    EventSourceArn: getAtt(queues.queue),
    BatchSize: numbers.batchSize,
    ScalingConfig: { MaximumConcurrency: numbers.maximumConcurrency },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  const queue = resources[logicalId(queues.queue)].Properties;
  expect(queue.VisibilityTimeout).toBe(numbers.visibilityTimeoutSeconds);
  expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: getAtt(queues.deadLetters.queue), maxReceiveCount: numbers.maxReceiveCount });
}

/** Whether the role of `role`'s function may send to `queue`. */
function sendsTo(role: FunctionRole, queue: { node: { defaultChild?: unknown } }): boolean {
  return statementsOf(role).some((s) => s.Effect === 'Allow' && list(s.Action).includes('sqs:SendMessage') && list(s.Resource).some((r) => JSON.stringify(r) === JSON.stringify(getAtt(queue))));
}

describe('scheduling', () => {
  it("has the stack's release schedule group and sweep schedule, named after the stack", () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: `Holdback-${RELEASE_SCHEDULE_GROUP}` });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: `Holdback-${SWEEP_SCHEDULE.name}`,
      ScheduleExpression: SWEEP_SCHEDULE.expression,
      FlexibleTimeWindow: { Mode: 'OFF' },
      GroupName: Match.absent(),
      Target: Match.objectLike({ Arn: getAtt(stack.functions[SWEEP_SCHEDULE.target].function) }),
    });
  });

  it('the release schedules run as a role that only Scheduler, for the release group, may assume and that may only send to the release queue and its own dead-letter queue', () => {
    const roleId = logicalId(stack.scheduling.role);
    const trust = resources[roleId].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({
      Principal: { Service: 'scheduler.amazonaws.com' },
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/^ReleaseSchedulingGroup/), 'Arn'] } } },
    })]);
    const granted = statements().filter(({ where }) => resources[where].Properties.Roles?.some((r: Json) => r.Ref === roleId));
    expect(granted.map(({ statement }) => [statement.Action, statement.Resource]))
      .toEqual([['sqs:SendMessage', [getAtt(stack.releaseQueue.queue), getAtt(stack.scheduling.deadLetters.queue)]]]);
  });

  it('the release queue drives the release function in batches, at the maximum concurrency its rate share assumes, with a redrive to its dead-letter queue', () => {
    expectQueueDrives(stack.functions.release.function, stack.releaseQueue, RELEASE_QUEUE);
    const release = resources[logicalId(stack.functions.release.function)].Properties;
    expect(release.Environment.Variables[RUNTIME_ENV.releaseMaxConcurrency]).toBe(String(RELEASE_QUEUE.maximumConcurrency));
  });

  it('the job queue drives the jobs function one step at a time, at a bounded concurrency, with a redrive to its dead-letter queue; only the API\'s changes (walks), its jobs function (previews) and the jobs function send to it', () => {
    expectQueueDrives(stack.functions.jobs.function, stack.jobQueue, JOB_QUEUE);
    const jobs = resources[logicalId(stack.functions.jobs.function)].Properties;
    expect(jobs.Timeout).toBe(JOB_QUEUE.functionTimeoutSeconds);
    for (const role of ['api', 'jobs', 'exportJobs'] as const) {
      const fn = resources[logicalId(stack.functions[role].function)].Properties;
      expect([role, fn.Environment.Variables[RUNTIME_ENV.jobQueueUrl]]).toEqual([role, { Ref: logicalId(stack.jobQueue.queue) }]);
    }
    expect(FUNCTION_ROLES.filter((role) => sendsTo(role, stack.jobQueue.queue))).toEqual(['api', 'jobs', 'apiJobs']);
  });

  it('the export job queue drives the export-jobs function alike (its own dead-letter queue, alarmed); the API\'s jobs and audit functions (exports, verifications) and both job functions send to it; the changes are told its URL but may not send', () => {
    expectQueueDrives(stack.functions.exportJobs.function, stack.exportJobQueue, EXPORT_JOB_QUEUE);
    const exportJobs = resources[logicalId(stack.functions.exportJobs.function)].Properties;
    expect(exportJobs.Timeout).toBe(EXPORT_JOB_QUEUE.functionTimeoutSeconds);
    const told = FUNCTION_ROLES.filter((role) => resources[logicalId(stack.functions[role].function)].Properties.Environment.Variables[RUNTIME_ENV.exportJobQueueUrl] !== undefined);
    expect(told).toEqual(['api', 'jobs', 'exportJobs', 'apiJobs', 'apiAudit']);
    for (const role of told) {
      const fn = resources[logicalId(stack.functions[role].function)].Properties;
      expect([role, fn.Environment.Variables[RUNTIME_ENV.exportJobQueueUrl]]).toEqual([role, { Ref: logicalId(stack.exportJobQueue.queue) }]);
    }
    expect(FUNCTION_ROLES.filter((role) => sendsTo(role, stack.exportJobQueue.queue))).toEqual(['jobs', 'exportJobs', 'apiJobs', 'apiAudit']);
    // Its dead letters alarm, as the job queue's do.
    const alarmed = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties)
      .filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(a.Dimensions).includes(logicalId(stack.exportJobQueue.deadLetters.queue)));
    expect(alarmed).toHaveLength(1);
  });

  it('export files go to a bucket of the stack: encrypted, public access blocked, TLS only, expiring; only the export-jobs function writes and reads them, by name', () => {
    const bucket = resources[logicalId(stack.exportBucket.bucket)].Properties;
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: EXPORT_RETENTION_DAYS, Status: 'Enabled' })]);
    const policy = ofType('AWS::S3::BucketPolicy').map(([, p]) => p.Properties).find((p) => JSON.stringify(p.Bucket) === JSON.stringify({ Ref: logicalId(stack.exportBucket.bucket) }));
    expect(policy?.PolicyDocument.Statement).toEqual(expect.arrayContaining([expect.objectContaining({
      Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    })]));
    const exportJobs = resources[logicalId(stack.functions.exportJobs.function)].Properties;
    expect(exportJobs.Environment.Variables[RUNTIME_ENV.exportBucket]).toEqual({ Ref: logicalId(stack.exportBucket.bucket) });
    const touchesBucket = (role: FunctionRole) => statementsOf(role).filter((s) => JSON.stringify(s.Resource).includes(logicalId(stack.exportBucket.bucket)));
    expect(touchesBucket('exportJobs').map((s) => [...list(s.Action)].sort())).toEqual([['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject']]);
    for (const role of FUNCTION_ROLES.filter((r) => r !== 'exportJobs')) expect([role, touchesBucket(role)]).toEqual([role, []]);
  });

  it("the api function's wait for a new scheduler role ends well inside its timeout; the others keep the adapter's default", () => {
    const api = resources[logicalId(stack.functions.api.function)].Properties;
    const wait = Number(api.Environment.Variables[RUNTIME_ENV.scheduleRoleWaitMs]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThan(api.Timeout * 1000 / 2);
    for (const role of FUNCTION_ROLES.filter((r) => r !== 'api')) {
      expect([role, resources[logicalId(stack.functions[role].function)].Properties.Environment.Variables[RUNTIME_ENV.scheduleRoleWaitMs]]).toEqual([role, undefined]);
    }
  });

  it('a stack that creates the gateway secret never disables the release queue\'s consumer: releases wait for the secret, not a deploy', () => {
    expect(stack.gateway.created).toBe(true);
    for (const [id, mapping] of ofType('AWS::Lambda::EventSourceMapping')) expect([id, mapping.Properties.Enabled]).toEqual([id, undefined]);
    template.hasOutput('Releases', { Description: Match.stringLikeRegexp('Paused until .* are in GatewaySecretArn; they run within minutes of it, with no deploy') });
  });

  it('each function reserves its concurrency budget, so a webhook flood cannot starve order events and the sweep', () => {
    for (const role of FUNCTION_ROLES) {
      expect([role, resources[logicalId(stack.functions[role].function)].Properties.ReservedConcurrentExecutions])
        .toEqual([role, DEFAULT_CONCURRENCY_BUDGET[role]]);
    }
  });
});

describe('IAM', () => {
  const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

  it('grants no wildcard actions, and nothing on resource `*` but the X-Ray calls that have no resource', () => {
    const all = statements();
    expect(all.length).toBeGreaterThan(0);
    for (const { where, statement } of all) {
      const context = `${where}: ${JSON.stringify(statement)}`;
      for (const action of list(statement.Action)) expect([context, action]).not.toEqual([context, expect.stringMatching(/\*/)]);
      if (list(statement.Resource).includes('*')) expect([context, [...list(statement.Action)].sort()]).toEqual([context, XRAY]);
    }
  });

  it('scheduler actions reach only schedules of the release group; iam:PassRole only its execution role, only to Scheduler', () => {
    const scheduling = statements().filter(({ statement }) => list(statement.Action).some((a) => a.startsWith('scheduler:')));
    expect(scheduling.length).toBeGreaterThan(0);
    for (const { statement } of scheduling) {
      expect(JSON.stringify(statement.Resource)).toMatch(new RegExp(`:schedule/Holdback-${RELEASE_SCHEDULE_GROUP}/\\*"`));
    }
    const passRole = statements().filter(({ statement }) => list(statement.Action).includes('iam:PassRole'));
    expect(passRole.length).toBeGreaterThan(0);
    for (const { statement } of passRole) {
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ReleaseSchedulingExecutionRole/), 'Arn'] });
      expect(statement.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    }
  });

  it('every function but the webhooks, the sweep, the export jobs and the API\'s reads, jobs, audit, vendors and pages may create, update and delete release schedules (plans, holds and manual releases move them); the webhooks may only delete them, the others (which only enqueue or read) nothing', () => {
    const creates = ['iam:PassRole', 'scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'];
    const none = ['sweep', 'exportJobs', 'apiReads', 'apiJobs', 'apiAudit', 'apiVendors', 'apiPages'];
    const expected = (role: string) => (role === 'webhooks' ? ['scheduler:DeleteSchedule'] : none.includes(role) ? [] : creates);
    for (const role of FUNCTION_ROLES) {
      const actions = statementsOf(role).flatMap((s) => list(s.Action)).filter((a) => a.startsWith('scheduler:') || a.startsWith('iam:'));
      expect([role, [...new Set(actions)].sort()]).toEqual([role, expected(role)]);
    }
  });

  it('only the release function, the api (order lookup), the vendors\' function (GET /vendors?checkGateway=true) and the webhooks (signature, order lookup) may read the gateway secret', () => {
    const secretId = logicalId(stack.gateway.secret as unknown as { node: { defaultChild?: unknown } });
    for (const role of FUNCTION_ROLES) {
      const reads = statementsOf(role).some((s) => JSON.stringify(s.Resource).includes(secretId) && list(s.Action).includes('secretsmanager:GetSecretValue'));
      expect([role, reads]).toEqual([role, role === 'release' || role === 'api' || role === 'apiVendors' || role === 'webhooks']);
    }
  });

  it("every resource is one of this stack's own (or its index or version), the release group's schedules, the bus, or a route of its API", () => {
    const own = (value: unknown): boolean => {
      const v = value as Json;
      const id = v?.['Fn::GetAtt']?.[0] ?? v?.Ref;
      return typeof id === 'string' && id in resources && (v.Ref !== undefined || ['Arn', 'StreamArn'].includes(v['Fn::GetAtt'][1]));
    };
    const scopedArn = (suffix: string): Json => ({ 'Fn::Join': ['', [
      'arn:', { Ref: 'AWS::Partition' }, `:${suffix.split(':')[0]}:`, { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${suffix.split(':')[1]}`,
    ]] });
    const allowed = [scopedArn(`scheduler:schedule/Holdback-${RELEASE_SCHEDULE_GROUP}/*`)];
    const apiRoute = (resource: unknown): boolean => {
      const text = JSON.stringify((resource as Json)?.['Fn::Join']?.[1] ?? null);
      return text.includes(':execute-api:') && text.includes(logicalId(stack.api.httpApi));
    };
    for (const { where, statement } of statements()) {
      if (list(statement.Resource).includes('*')) continue; // X-Ray, checked above
      for (const resource of list(statement.Resource)) {
        const parts = (resource as Json)?.['Fn::Join']?.[1];
        const ok = own(resource)
          || allowed.some((a) => JSON.stringify(a) === JSON.stringify(resource))
          || apiRoute(resource)
          || (Array.isArray(parts) && parts.length === 2 && own(parts[0]) && ['/index/*', ':*', '/stream/*', '/*'].includes(parts[1]));
        expect([where, resource, ok]).toEqual([where, resource, true]);
      }
    }
  });

  it('uses no AWS managed policies (their log permissions are on `*`)', () => {
    for (const [, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('HTTP API', () => {
  /** Each route's integration's function, by role: the route table (definitions/api-routing.ts) made template. */
  const routeTargets = (): Record<string, string> => {
    const integrations = Object.fromEntries(ofType('AWS::ApiGatewayV2::Integration').map(([id, i]) => [id, i.Properties]));
    const roleOf = (uri: unknown) => FUNCTION_ROLES.find((role) => JSON.stringify(uri) === JSON.stringify(getAtt(stack.functions[role].function)));
    return Object.fromEntries(ofType('AWS::ApiGatewayV2::Route').map(([, r]) => {
      const integration = integrations[String(r.Properties.Target['Fn::Join'][1][1].Ref)];
      expect([r.Properties.RouteKey, integration.IntegrationType, integration.PayloadFormatVersion]).toEqual([r.Properties.RouteKey, 'AWS_PROXY', '2.0']);
      return [r.Properties.RouteKey, roleOf(integration.IntegrationUri) ?? 'none'];
    }));
  };

  it('has no route without IAM authorisation: a route per row of the route table and a greedy catch-all, all AWS_IAM', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    expect(routes.map((r) => [r.RouteKey, r.AuthorizationType]).sort()).toEqual([...API_ROUTE_TABLE.map((r) => `${r.method} ${r.path}`), 'ANY /{proxy+}'].map((key) => [key, 'AWS_IAM']).sort());
  });

  it('sends each route to the function the route table names (the gateway\'s webhook to the webhooks function), the rest to the pages, and logs every request', () => {
    expect(routeTargets()).toEqual({ ...Object.fromEntries(API_ROUTE_TABLE.map((r) => [`${r.method} ${r.path}`, r.serves])), 'ANY /{proxy+}': UNROUTED_FUNCTION });
    // Every API function serves some route (none created and left unwired).
    expect([...new Set(Object.values(routeTargets()))].sort()).toEqual([...API_FUNCTIONS, 'webhooks'].sort());
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
    });
  });
});

describe('functions', () => {
  it('the pages function (console, OpenAPI document, unrouted requests) reads no table, bus, secret, schedule or queue: no variable and no grant but its logs', () => {
    const fn = resources[logicalId(stack.functions.apiPages.function)];
    expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(['POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME']);
    const actions = statementsOf('apiPages').filter((s) => s.Effect === 'Allow').flatMap((s) => list(s.Action));
    expect([...new Set(actions)].filter((a) => !a.startsWith('logs:') && !a.startsWith('xray:'))).toEqual([]);
  });

  it('run Node.js 24 on arm64 with their own log groups', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(FUNCTION_ROLES.length + 1); // and the audit archive's copier
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.any(String) });
    }
  });

  it('each gets an environment composition-root.ts accepts, with the gateway secret by ARN and no credential in any variable', () => {
    const placeholders = (value: unknown): string => {
      // Deploy-time values as the function would see them: any string (here the token's JSON, so that it can be
      // compared), except the URL the parameter constrains.
      if (typeof value === 'string') return value;
      return JSON.stringify(value).includes('"GatewayBaseUrl"') ? 'https://api.example.com' : JSON.stringify(value);
    };
    const known = new Set<string>([...Object.values(RUNTIME_ENV), 'NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL']);
    for (const [id, fn] of holdbackFunctions()) {
      const variables: Json = fn.Properties.Environment.Variables;
      // A misspelt optional variable would pass readRuntimeConfig silently and leave its default in force.
      expect([id, Object.keys(variables).filter((name) => !known.has(name))]).toEqual([id, []]);
      // Node would parse each bundle's source map at every cold start (issue 17.7: about 10 ms of CPU); the map ships, unloaded.
      expect([id, variables.NODE_OPTIONS]).toEqual([id, undefined]);
      // Issue 9: credentials never in the environment (readable by lambda:GetFunctionConfiguration), nor any reference to their value.
      expect([id, variables[RUNTIME_ENV.gatewayClientId], variables[RUNTIME_ENV.gatewayClientSecret]]).toEqual([id, undefined, undefined]);
      expect([id, JSON.stringify(variables)]).not.toEqual([id, expect.stringMatching(/resolve:secretsmanager|clientSecret/)]);
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, placeholders(v)]));
      const config = readRuntimeConfig({ ...env, AWS_REGION: 'ap-south-1' });
      expect([id, config.eventBus, config.orderEventSource, config.scheduler.groupName, config.gateway.credentials]).toEqual([
        id, JSON.stringify({ Ref: logicalId(stack.intake.bus) }), DEFAULT_EVENT_SOURCE, `Holdback-${RELEASE_SCHEDULE_GROUP}`,
        { secretId: JSON.stringify({ Ref: logicalId(stack.gateway.secret as unknown as { node: { defaultChild?: unknown } }) }) },
      ]);
    }
  });
});

describe('cdk-nag', () => {
  it.each([['AwsSolutions', () => new AwsSolutionsChecks()], ['Serverless', () => new ServerlessChecks()]])(
    'the %s pack passes, with every remaining finding acknowledged with a reason', (_name, pack) => {
      const report = pack().validateScope(stack);
      const findings = report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
      expect(findings).toEqual([]);
      expect(report.success).toBe(true);
    },
  );
});

describe('context', () => {
  const nodeWith = (context: Record<string, unknown>) => new App({ context }).node;

  it('defaults: ap-south-1 near the gateway, the stack\'s own bus (no name given) and no producers, the default source, the queue concurrency, a concurrency budget, the retention policy', () => {
    expect(holdbackPropsFromContext(nodeWith({}))).toEqual({
      stackName: 'Holdback', region: 'ap-south-1', eventProducers: [], orderEventSource: DEFAULT_EVENT_SOURCE, gatewayBaseUrl: undefined,
      gatewaySecretName: undefined, releaseConcurrency: RELEASE_QUEUE.maximumConcurrency,
      concurrencyBudget: DEFAULT_CONCURRENCY_BUDGET, retentionDays: DEFAULT_RETENTION_DAYS,
    });
  });

  it('a concurrency budget that does not fit the account is refused with what to do; none reserves nothing', () => {
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.accountConcurrencyLimit]: '10' })))
      .toThrow(/reserves 100 concurrent executions, and Lambda keeps 100 unreserved, but the account's limit is 10 .* -c holdback:concurrencyBudget=none/);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.accountConcurrencyLimit]: '10', [CONTEXT_KEYS.concurrencyBudget]: 'none' })).concurrencyBudget).toBeNull();
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.concurrencyBudget]: '{"api": 5}' })).concurrencyBudget).toEqual({ ...DEFAULT_CONCURRENCY_BUDGET, api: 5 });
    expect(() => new HoldbackStack(new App({ context: SYNTH_CONTEXT }), 'Small', { concurrencyBudget: { ...DEFAULT_CONCURRENCY_BUDGET, release: 2 } }))
      .toThrow(/reserved concurrency \(2\) is below its queue's maximum concurrency \(10\)/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.concurrencyBudget]: '{"webhook": 5}' })))
      .toThrow(/names "webhook"; send functions among orderEvents, release, sweep, api, webhooks, jobs, exportJobs, apiReads, apiJobs, apiAudit, apiVendors, apiPages$/);
  });

  it("keeps the due index's projection of a stack deployed while it was ALL (DynamoDB cannot change it in place); keys only by default", () => {
    const dueProjection = (t: Template) => {
      const orders = Object.values(t.findResources('AWS::DynamoDB::Table')).find((r) => (r as Json).Properties.GlobalSecondaryIndexes?.some((i: Json) => i.IndexName === 'due')) as Json;
      return orders.Properties.GlobalSecondaryIndexes.find((i: Json) => i.IndexName === 'due').Projection;
    };
    expect(dueProjection(template)).toEqual({ ProjectionType: 'KEYS_ONLY' });
    const props = holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.dueIndexProjection]: 'ALL' }));
    expect(props.dueIndexProjection).toBe('ALL');
    const legacy = new HoldbackStack(new App({ context: SYNTH_CONTEXT }), 'Legacy', { dueIndexProjection: props.dueIndexProjection });
    expect(dueProjection(Template.fromStack(legacy))).toEqual({ ProjectionType: 'ALL' });
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.dueIndexProjection]: 'INCLUDE' })))
      .toThrow(/holdback:dueIndexProjection is "INCLUDE"; send KEYS_ONLY \(the default\) or ALL/);
  });

  it('reads the release concurrency (at least 2, as SQS event sources require), retention per kind, and refuses the old releasesEnabled flag', () => {
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: '4' })).releaseConcurrency).toBe(4);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: 1 })))
      .toThrow(/holdback:releaseConcurrency is 1; send a whole number of at least 2/);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.retentionDays]: '{"events": 30}' })).retentionDays).toEqual({ ...DEFAULT_RETENTION_DAYS, events: 30 });
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.retentionDays]: '{"audit": 30}' })))
      .toThrow(/names "audit"; send kinds among orders, events, rejected \(settings and policy history and the audit log are kept for ever\)/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releasesEnabled]: 'true' })))
      .toThrow(/holdback:releasesEnabled is no longer read: releases run whenever the gateway secret holds the credentials/);
  });

  it('treats a blank value as unset, and names the key of a value of the wrong type', () => {
    const blank = holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventBusName]: ' ', [CONTEXT_KEYS.releaseConcurrency]: ' ' }));
    expect([blank.eventBusName, blank.releaseConcurrency]).toEqual([undefined, RELEASE_QUEUE.maximumConcurrency]);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.stackName]: ' Holdback-staging ' })).stackName).toBe('Holdback-staging');
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.stackName]: 3 })))
      .toThrow(/holdback:stackName is 3; send a string/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: true })))
      .toThrow(/holdback:releaseConcurrency is true; send a whole number/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.orderEventSource]: 7 })))
      .toThrow(/holdback:orderEventSource is 7; send a string, e.g. -c holdback:orderEventSource=value/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.alarmEmail]: 'ops' })))
      .toThrow(/holdback:alarmEmail is "ops"; send an e-mail address/);
  });
});

describe('retention', () => {
  it('orders and rejected events expire by TTL (expiresAt); in the config table only previews carry its TTL attribute (settings and policy history never do)', () => {
    const ttlOf = (name: TableName) => resources[logicalId(stack.tables[name].table)].Properties.TimeToLiveSpecification;
    expect(ttlOf('orders')).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(ttlOf('rejected')).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(ttlOf('config')).toEqual({ AttributeName: PREVIEW_EXPIRY_ATTRIBUTE, Enabled: true });
  });

  it("every function gets the stack's retention per kind, which the repositories stamp on what may expire", () => {
    for (const [id, fn] of holdbackFunctions()) {
      expect([id, JSON.parse(fn.Properties.Environment.Variables[RUNTIME_ENV.retentionDays])]).toEqual([id, DEFAULT_RETENTION_DAYS]);
    }
  });
});

describe('alarms and dashboard', () => {
  it('alarm on every dead-letter queue, on failures, drift, lateness and 429s, to one topic', () => {
    const queues = ofType('AWS::SQS::Queue').filter(([id]) => /DeadLetters/.test(id)).map(([id]) => id);
    expect(queues.length).toBe(6);
    // The trust alarms (issue 18) are tested in stack-trust.test.ts.
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([id]) => !id.startsWith('TrustAlarms')).map(([, a]) => a.Properties);
    for (const queue of queues) {
      expect([queue, alarms.some((a) => JSON.stringify(a.Dimensions ?? []).includes(queue))]).toEqual([queue, true]);
    }
    const metrics = alarms.map((a) => a.MetricName).filter((m) => m !== 'ApproximateNumberOfMessagesVisible').sort();
    expect(metrics).toEqual([METRIC.drift.name, METRIC.rateLimited.name, METRIC.failed.name, METRIC.sendLateness.name, METRIC.auditHeadRefused.name, METRIC.heldSettlingSoon.name].sort());
    const topic = logicalId(stack.observability.topic);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topic }]);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('subscribes the alarm e-mail from context', () => {
    const app = new App({ context: SYNTH_CONTEXT });
    const t = Template.fromStack(new HoldbackStack(app, 'Mail', { alarmEmail: 'ops@example.com' }));
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('access policies', () => {
  const grantedRoutes = (policy: { node: { defaultChild?: unknown } }): string[] => {
    const document = resources[logicalId(policy)].Properties.PolicyDocument;
    return document.Statement.flatMap((s: Statement) => list(s.Resource)).map((r: Json) => {
      const parts: unknown[] = r['Fn::Join'][1];
      return String(parts[parts.length - 1]).replace(/^\/\$default\//, '');
    }).sort();
  };
  const expectedRoutes = (audiences: readonly string[]) => ROUTE_AUDIENCES.filter((r) => audiences.includes(r.audience))
    .map((r) => `${r.method}${r.path.replace(/\{[^/]+\}/g, '*')}`).sort();

  it('finance may read and change (settings, policies, previews, release, hold, import) and nothing of the audit', () => {
    expect(grantedRoutes(stack.access.finance)).toEqual(expectedRoutes(['read', 'finance']));
    expect(grantedRoutes(stack.access.finance).filter((r) => r.includes('/audit/'))).toEqual([]);
  });

  it('auditors may read, export and verify, and call nothing that changes state', () => {
    const routes = grantedRoutes(stack.access.auditor);
    expect(routes).toEqual(expectedRoutes(['read', 'audit']));
    // POST /exports changes no business state: it writes a copy of what auditors may read anyway (contract 6.3); nor
    // does POST /audit/verifications: it starts the job that verifies the log (GET /audit/verify's answer as a job).
    const reads = ['POST/predictions', 'POST/exports', 'POST/audit/verifications'];
    expect(routes.filter((r) => /^(PUT|DELETE|PATCH)/.test(r) || (r.startsWith('POST') && !reads.includes(r)))).toEqual([]);
    expect(routes).toEqual(expect.arrayContaining(['POST/exports', 'POST/audit/verifications']));
  });

  it('checkers (four eyes) may read and approve or reject pending changes, and change nothing directly', () => {
    const routes = grantedRoutes(stack.access.checker);
    expect(routes).toEqual(expectedRoutes(['read', 'approve']));
    const changes = routes.filter((r) => /^(PUT|DELETE|PATCH|POST)/.test(r) && r !== 'POST/predictions' && r !== 'POST/exports');
    expect(changes).toEqual(['POST/approvals/*/approve', 'POST/approvals/*/reject']);
    // Finance asks for changes; deciding them is the checker's: a finance-only role cannot approve.
    expect(grantedRoutes(stack.access.finance).filter((r) => r.startsWith('POST/approvals/'))).toEqual([]);
    expect(template.findOutputs('CheckerPolicyArn')).not.toEqual({});
  });

  it('the backend may put events of its source on the bus, nothing else', () => {
    const document = resources[logicalId(stack.access.backend)].Properties.PolicyDocument;
    expect(document.Statement).toEqual([expect.objectContaining({
      Action: 'events:PutEvents',
      Condition: { StringEquals: { 'events:source': DEFAULT_EVENT_SOURCE } },
    })]);
  });
});

describe('audit checkpoint key', () => {
  it('is an asymmetric signing key, retained, that only the sweep (the checkpoint writer) may sign with', () => {
    const key = resources[logicalId(stack.auditKey.key)];
    expect([key.Properties.KeySpec, key.Properties.KeyUsage, key.DeletionPolicy]).toEqual(['ECC_NIST_P256', 'SIGN_VERIFY', 'RetainExceptOnCreate']);
    const policy: Statement[] = key.Properties.KeyPolicy.Statement;
    const signers = policy.filter((s) => list(s.Action).some((a) => a === 'kms:Sign' || a === 'kms:*' || a === 'kms:Sign*'));
    expect(signers.map((s) => (s as Json).Principal)).toEqual([{ AWS: getAtt(stack.functions.sweep.role) }]);
    // No IAM policy anywhere grants signing either.
    expect(statements().filter(({ statement }) => list(statement.Action).some((a) => a.startsWith('kms:Sign')))).toEqual([]);
    const sweepEnv = resources[logicalId(stack.functions.sweep.function)].Properties.Environment.Variables;
    expect(sweepEnv[RUNTIME_ENV.auditCheckpointWriter]).toBe('true');
    for (const role of FUNCTION_ROLES.filter((r) => r !== 'sweep')) {
      const env = resources[logicalId(stack.functions[role].function)].Properties.Environment.Variables;
      // The webhooks and the jobs only append: they neither verify nor serve the key, so their roles cannot even read it
      // (the open URL's above all); the export jobs verify the log with it; of the API's functions only apiAudit serves
      // the audit log.
      const keyId = role === 'webhooks' || role === 'jobs' || ['api', 'apiReads', 'apiJobs', 'apiVendors', 'apiPages'].includes(role) ? undefined : getAtt(stack.auditKey.key);
      expect([role, env[RUNTIME_ENV.auditCheckpointWriter], env[RUNTIME_ENV.auditKmsKeyId]]).toEqual([role, undefined, keyId]);
    }
    const readers = policy.filter((s) => list(s.Action).includes('kms:GetPublicKey')).flatMap((s) => list((s as Json).Principal.AWS));
    for (const role of ['webhooks', 'jobs', 'api', 'apiReads', 'apiJobs', 'apiVendors', 'apiPages'] as const) expect(readers).not.toContainEqual(getAtt(stack.functions[role].role));
    expect(readers).toContainEqual(getAtt(stack.functions.apiAudit.role));
    expect(readers).toContainEqual(getAtt(stack.functions.exportJobs.role));
  });
});

describe('audit log: write-once (issue 16)', () => {
  it("the key's policy can never change: no principal may put a policy, create a grant or schedule deletion; the stack bypasses KMS's lockout check on purpose", () => {
    const key = resources[logicalId(stack.auditKey.key)];
    expect(key.Properties.BypassPolicyLockoutSafetyCheck).toBe(true);
    const actions = (key.Properties.KeyPolicy.Statement as Statement[]).flatMap((s) => list(s.Action));
    for (const forbidden of ['kms:PutKeyPolicy', 'kms:Put*', 'kms:CreateGrant', 'kms:Create*', 'kms:ScheduleKeyDeletion', 'kms:*', 'kms:ReplicateKey', 'kms:ImportKeyMaterial']) {
      expect([forbidden, actions.includes(forbidden)]).toEqual([forbidden, false]);
    }
  });

  it('replaced keys stay readable: their ARNs (holdback:auditPreviousKeyArns) reach the readers with GetPublicKey on them', () => {
    const app = new App({ context: SYNTH_CONTEXT });
    const old = 'arn:aws:kms:ap-south-1:123456789012:key/00000000-0000-0000-0000-000000000001';
    const withOld = new HoldbackStack(app, 'Rotated', { auditPreviousKeyArns: [old] });
    const t = Template.fromStack(withOld).toJSON().Resources as Record<string, Json>;
    const api = t[withOld.getLogicalId(withOld.functions.apiAudit.function.node.defaultChild as CfnElement)];
    expect(api.Properties.Environment.Variables[RUNTIME_ENV.auditPreviousKmsKeyIds]).toBe(old);
    const apiRole = withOld.getLogicalId(withOld.functions.apiAudit.role.node.defaultChild as CfnElement);
    const granted = Object.values(t).filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: Json) => x.Ref === apiRole))
      .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[]);
    // GetPublicKey for the public half, DescribeKey for its validity (GET /audit/public-keys' from and to).
    expect(granted).toContainEqual(expect.objectContaining({ Effect: 'Allow', Action: ['kms:DescribeKey', 'kms:GetPublicKey'], Resource: old }));
  });

  it('the long-term copy: an S3 bucket with Object Lock in compliance mode (100 years), retained, fed by the audit table\'s stream through the copier', () => {
    const bucket = resources[logicalId(stack.auditArchive.bucket)];
    expect(bucket.Properties.ObjectLockEnabled).toBe(true);
    expect(bucket.Properties.ObjectLockConfiguration).toEqual({ ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 36500 } } });
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.DeletionPolicy).toBe('Retain');
    const table = resources[logicalId(stack.tables.audit.table)];
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const copier = logicalId(stack.auditArchive.copier.function);
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties).filter((m) => JSON.stringify(m.EventSourceArn).includes('StreamArn'));
    expect(mappings).toEqual([expect.objectContaining({ FunctionName: { Ref: copier }, EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.tables.audit.table), 'StreamArn'] }, StartingPosition: 'TRIM_HORIZON', BatchSize: 1000, MaximumBatchingWindowInSeconds: 60 })]);
    expect(resources[copier].Properties.Environment.Variables.HOLDBACK_AUDIT_ARCHIVE_BUCKET).toEqual({ Ref: logicalId(stack.auditArchive.bucket) });
  });

  it('no role of the stack can change or delete the copy: only the copier may write to the bucket, only PutObject, and the bucket denies any put that could replace a key', () => {
    // Statements on the archive bucket (the exports bucket of contract 6.3 is another bucket, with its own test).
    const archive = logicalId(stack.auditArchive.bucket);
    const s3 = statements().filter(({ statement }) => statement.Effect === 'Allow' && list(statement.Action).some((a) => a.startsWith('s3:'))
      && JSON.stringify(statement.Resource).includes(archive));
    const READS = ['s3:GetObject', 's3:ListBucket'];
    const writes = s3.filter(({ statement }) => list(statement.Action).some((a) => !READS.includes(a)));
    const copierRole = logicalId(stack.auditArchive.copier.role);
    for (const { where, statement } of writes) {
      expect([where, resources[where].Properties.Roles]).toEqual([where, [{ Ref: copierRole }]]);
      expect(list(statement.Action)).toEqual(['s3:PutObject']);
    }
    expect(writes).toHaveLength(1);
    // Nothing may change the lock or the bucket policy (the bucket policy enforces TLS and write-once keys).
    const bucketPolicy = ofType('AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket).includes(archive))![1].Properties.PolicyDocument.Statement as Statement[];
    expect(bucketPolicy.every((st) => st.Effect === 'Deny')).toBe(true);
    // A PutObject without If-None-Match: * is denied to everyone: no key is ever given a second version to read.
    expect(bucketPolicy).toContainEqual(expect.objectContaining({
      Sid: 'WriteOnceKeys', Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:PutObject', Condition: { Null: { 's3:if-none-match': 'true' } },
    }));
  });

  it('verification and export read the copy: the API\'s audit function and the export-jobs function are given its bucket and may list and get it, nothing more; no other function may', () => {
    const archive = logicalId(stack.auditArchive.bucket);
    const readsOf = (role: FunctionRole): string[] => statementsOf(role)
      .filter((st) => st.Effect === 'Allow' && JSON.stringify(st.Resource).includes(archive)).flatMap((st) => list(st.Action)).sort();
    for (const role of FUNCTION_ROLES) {
      const variables = resources[logicalId(stack.functions[role].function)].Properties.Environment.Variables;
      const reader = role === 'apiAudit' || role === 'exportJobs';
      expect([role, variables[RUNTIME_ENV.auditArchiveBucket]]).toEqual([role, reader ? { Ref: archive } : undefined]);
      expect([role, readsOf(role)]).toEqual([role, reader ? ['s3:GetObject', 's3:ListBucket'] : []]);
    }
  });

  it('a stream batch the copier could not write after every retry alarms on the stack\'s alarm topic', () => {
    const failures = logicalId(stack.auditArchive.failures);
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties.Dimensions ?? []).includes(failures));
    expect(alarms).toHaveLength(1);
    expect(alarms[0][1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, AlarmActions: [{ Ref: logicalId(stack.observability.topic) }],
    });
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'))![1];
    expect(mapping.Properties.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [failures, 'Arn'] } } });
  });

  it('the table is append-only for every role: no UpdateItem or batch writes, DeleteItem only of the pending entries by the writer, checkpoints and pointers put by the writer alone', () => {
    const audit = getAtt(stack.tables.audit.table);
    for (const role of FUNCTION_ROLES) {
      const denies = statementsOf(role).filter((st) => st.Effect === 'Deny' && JSON.stringify(st.Resource) === JSON.stringify(audit));
      expect([role, denies.some((d) => list(d.Action).includes('dynamodb:UpdateItem') && d.Condition === undefined)]).toEqual([role, true]);
      const deletes = denies.find((d) => list(d.Action).includes('dynamodb:DeleteItem'));
      expect([role, deletes?.Condition]).toEqual([role, role === 'sweep' ? { 'ForAnyValue:StringNotEquals': { 'dynamodb:LeadingKeys': ['pending'] } } : undefined]);
      const checkpointPuts = denies.find((d) => list(d.Action).includes('dynamodb:PutItem'));
      expect([role, checkpointPuts?.Condition]).toEqual([role, role === 'sweep' ? undefined : { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': ['checkpoints', 'signed'] } }]);
    }
  });
});

describe('two stacks in one account', () => {
  it('share no physical name (schedule groups, schedules, functions, dashboards, tables by CloudFormation)', () => {
    const app = new App({ context: SYNTH_CONTEXT });
    const names = (s: Stack): string[] => {
      const found: string[] = [];
      for (const r of Object.values(Template.fromStack(s).toJSON().Resources as Record<string, Json>)) {
        for (const key of ['Name', 'FunctionName', 'DashboardName', 'TableName', 'QueueName', 'TopicName', 'RoleName', 'ManagedPolicyName']) {
          if (typeof r.Properties?.[key] === 'string') found.push(`${r.Type} ${r.Properties[key]}`);
        }
      }
      return found;
    };
    const stacks = [new HoldbackStack(app, 'Holdback-a'), new HoldbackStack(app, 'Holdback-b')];
    const [a, b] = stacks.map(names);
    expect(a.length).toBeGreaterThan(3);
    expect(a.filter((n) => b.includes(n))).toEqual([]);
  });

  it("cut a long stack name (up to CloudFormation's 128 characters), never what follows it, to each service's limit", () => {
    const long = new HoldbackStack(new App({ context: SYNTH_CONTEXT }), `Holdback-${'x'.repeat(128 - 'Holdback-'.length)}`);
    const t = Template.fromStack(long).toJSON().Resources as Record<string, Json>;
    const named = (type: string, key: string): string[] => Object.values(t).filter((r) => r.Type === type).map((r) => r.Properties[key]);
    const expected = (suffix: string) => `Holdback-${'x'.repeat(64 - suffix.length - 1 - 'Holdback-'.length)}-${suffix}`;
    expect(named('AWS::Scheduler::ScheduleGroup', 'Name')).toEqual([expected(RELEASE_SCHEDULE_GROUP)]);
    expect(named('AWS::Scheduler::Schedule', 'Name')).toEqual([expected(SWEEP_SCHEDULE.name)]);
    expect(named('AWS::Lambda::Function', 'FunctionName').filter(Boolean)).toEqual([expected('release')]);
    for (const name of [RELEASE_SCHEDULE_GROUP, SWEEP_SCHEDULE.name, 'release']) expect(expected(name)).toHaveLength(64);
    expect(named('AWS::ApiGatewayV2::Api', 'Name')[0]).toMatch(/^Holdback-x+-api$/);
    expect(named('AWS::ApiGatewayV2::Api', 'Name')[0]).toHaveLength(128);
    expect(named('AWS::SNS::Topic', 'DisplayName')[0]).toHaveLength(100);
  });
});

describe('HTTP API throttling', () => {
  it('throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: API_THROTTLE.rateLimit, ThrottlingBurstLimit: API_THROTTLE.burstLimit },
      RouteSettings: Match.absent(),
    });
  });
});

describe("the gateway's webhooks on a function URL", () => {
  const webhooksFunction = () => getAtt(stack.functions.webhooks.function);

  it('one function URL, open (auth NONE: the gateway cannot sign AWS requests), on the webhooks function alone', () => {
    const urls = ofType('AWS::Lambda::Url').map(([, u]) => u.Properties);
    expect(urls).toEqual([{ AuthType: 'NONE', InvokeMode: 'BUFFERED', TargetFunctionArn: webhooksFunction() }]);
    // Anyone may invoke it, but only through its URL: the two permissions a NONE URL needs, on no other function.
    const open = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties).filter((p) => p.Principal === '*');
    expect(open).toEqual([
      { Action: 'lambda:InvokeFunctionUrl', FunctionName: webhooksFunction(), FunctionUrlAuthType: 'NONE', Principal: '*' },
      { Action: 'lambda:InvokeFunction', FunctionName: webhooksFunction(), InvokedViaFunctionUrl: true, Principal: '*' },
    ]);
  });

  it('the webhooks function has its own role and its own reserved concurrency, so a flood on the URL cannot starve the API', () => {
    const fn = resources[logicalId(stack.functions.webhooks.function)].Properties;
    expect(fn.ReservedConcurrentExecutions).toBe(DEFAULT_CONCURRENCY_BUDGET.webhooks);
    expect(fn.Role).toEqual(getAtt(stack.functions.webhooks.role));
    expect(stack.functions.webhooks.role).not.toBe(stack.functions.api.role);
  });

  it("outputs WebhookUrl: the function URL and the webhook path, for the gateway's notify URL", () => {
    template.hasOutput('WebhookUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(stack.webhooks.functionUrl), 'FunctionUrl'] }, GATEWAY_WEBHOOK_PATH.slice(1)]] },
      Description: Match.stringLikeRegexp("gateway's notify/webhook URL"),
    });
  });

  it("the webhooks' role holds only what a webhook does: its table actions, the bus, deleting release schedules, the secret, its logs, tracing", () => {
    const granted = statementsOf('webhooks').filter((s) => s.Effect === 'Allow').flatMap((s) => list(s.Action));
    const tableActions = Object.values(TABLE_ACTIONS.webhooks).flatMap((actions) => [...actions]);
    expect([...new Set(granted)].sort()).toEqual([...new Set([
      ...tableActions, 'events:PutEvents', 'scheduler:DeleteSchedule', 'secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue',
      'logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments',
    ])].sort());
    // No index of the orders table (it never queries), no queue, no KMS, no role to pass.
    const orders = statementsOf('webhooks').filter((s) => JSON.stringify(s.Resource).includes(logicalId(stack.tables.orders.table)));
    expect(orders.map((s) => s.Resource)).toEqual([getAtt(stack.tables.orders.table)]);
  });
});

describe('bundling', () => {
  it('bundles a handler (the release and the webhooks entries) locally with esbuild into a CommonJS file that loads in plain Node and exports `handler`', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdback-bundle-'));
    try {
      const app = new App({ outdir, builtinCloudFormationValidation: false });
      const bundled = new Stack(app, 'Bundled');
      new HoldbackFunction(bundled, 'Release', { handlerFile: 'release', description: 'bundling test', timeout: Duration.seconds(5) });
      new HoldbackFunction(bundled, 'Webhooks', { handlerFile: 'webhooks', description: 'bundling test', timeout: Duration.seconds(5) });
      const assembly = app.synth();
      const code = Template.fromStack(bundled).toJSON().Resources;
      const functions = Object.values(code as Record<string, Json>).filter((r) => r.Type === 'AWS::Lambda::Function');
      expect(functions).toHaveLength(2);
      for (const fn of functions) {
        const assetDir = path.join(assembly.directory, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
        expect(fs.readdirSync(assetDir).sort()).toEqual(['index.js', 'index.js.map']);
        const exported = execFileSync(process.execPath, ['-e', `process.stdout.write(typeof require(${JSON.stringify(path.join(assetDir, 'index.js'))}).handler)`], {
          env: { PATH: process.env.PATH ?? '' },
        }).toString();
        expect(exported).toBe('function');
      }
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
