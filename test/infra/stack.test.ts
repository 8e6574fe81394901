/** The synthesized Holdback stack: tables and rules as tables.ts and routing.ts define them, least-privilege IAM, IAM-only API, cdk-nag clean. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TABLE_ENV, TABLES, type TableName } from '../../functions/adapters/dynamodb/tables';
import { RUNTIME_ENV, readRuntimeConfig } from '../../functions/composition-root';
import { DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, RELEASE_SCHEDULE_GROUP, SWEEP_SCHEDULE, eventRules } from '../../functions/routing';
import { CONTEXT_KEYS, holdbackPropsFromContext } from '../../lib/holdback-context';
import { HoldbackFunction } from '../../lib/holdback-function';
import { DEFAULT_RELEASE_CONCURRENCY, type FunctionRole, HoldbackStack } from '../../lib/holdback-stack';

/**
 * Skips esbuild (these tests read the template, not the bundles) and turns aws-cdk-lib's built-in CloudFormation
 * schema validation into errors, so that an invalid property fails the synth in beforeAll.
 */
const SYNTH_CONTEXT = { 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:validateAgainstDefaultRules': true };

type Json = Record<string, any>;
interface Statement { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Json }

let stack: HoldbackStack;
let template: Template;
let resources: Record<string, Json>;

const logicalId = (element: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const getAtt = (element: { node: { defaultChild?: unknown } }) => ({ 'Fn::GetAtt': [logicalId(element), 'Arn'] });
const ofType = (type: string): [string, Json][] => Object.entries(resources).filter(([, r]) => r.Type === type);
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
  it('are exactly the tables of tables.ts', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', Object.keys(TABLES).length);
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
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  it("gives every function every table's name in the variable tables.ts reads", () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      for (const name of Object.keys(TABLES) as TableName[]) {
        expect(fn.Properties.Environment.Variables[TABLE_ENV[name]]).toEqual({ Ref: logicalId(stack.tables[name].table) });
      }
    }
  });
});

describe('DynamoDB grants', () => {
  // What each function's use cases do with each table (absent: nothing, though it still gets the name).
  const expected: Record<FunctionRole, Partial<Record<TableName, 'read' | 'readWrite'>>> = {
    orderEvents: { orders: 'readWrite', config: 'read', rejected: 'readWrite' },
    release: { orders: 'readWrite', config: 'read' },
    sweep: { orders: 'readWrite', config: 'read' },
    api: { orders: 'readWrite', config: 'readWrite', rejected: 'read' },
  };
  const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

  it.each(Object.keys(expected) as FunctionRole[])('%s reads and writes only the tables its use cases touch', (role) => {
    for (const name of Object.keys(TABLES) as TableName[]) {
      const tableArn = getAtt(stack.tables[name].table);
      const actions = statementsOf(role)
        .filter((s) => list(s.Resource).some((r) => JSON.stringify(r).includes(JSON.stringify(tableArn))))
        .flatMap((s) => list(s.Action));
      const access = expected[role][name];
      const seen = actions.length === 0 ? undefined : writes.some((w) => actions.includes(w)) ? 'readWrite' : 'read';
      expect([role, name, seen]).toEqual([role, name, access]);
      if (access) expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      if (access === 'readWrite') expect(actions).toEqual(expect.arrayContaining(writes));
    }
  });
});

describe('event rules', () => {
  it("are routing.ts's rules, with its patterns, on the default bus, to the handler each names", () => {
    const rules = eventRules(DEFAULT_EVENT_SOURCE);
    template.resourceCountIs('AWS::Events::Rule', rules.length);
    for (const rule of rules) {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: 'default',
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

  it('a named bus, source and existing gateway secret (pinned version) are used when configured', () => {
    const app = new App({ context: SYNTH_CONTEXT });
    const custom = new HoldbackStack(app, 'Custom', {
      eventBusName: 'marketplace', orderEventSource: 'acme.orders', releaseConcurrency: null,
      gatewaySecretName: 'holdback/gateway', gatewaySecretVersionId: 'v-2',
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
    for (const fn of Object.values(t.findResources('AWS::Lambda::Function'))) {
      const reference = JSON.stringify(fn.Properties.Environment.Variables[RUNTIME_ENV.gatewayClientSecret]);
      expect(reference).toMatch(/^\{"Fn::Join":\["",\["\{\{resolve:secretsmanager:arn:.*:secret:holdback\/gateway:SecretString:clientSecret::v-2\}\}"\]\]\}$/);
    }
  });
});

describe('scheduling', () => {
  it('has the release schedule group and the sweep schedule of routing.ts', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: RELEASE_SCHEDULE_GROUP });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: SWEEP_SCHEDULE.name,
      ScheduleExpression: SWEEP_SCHEDULE.expression,
      FlexibleTimeWindow: { Mode: 'OFF' },
      GroupName: Match.absent(),
      Target: Match.objectLike({ Arn: getAtt(stack.functions[SWEEP_SCHEDULE.target].function) }),
    });
  });

  it('the release schedules run as a role that only Scheduler, for the release group, may assume and that may only invoke the release function', () => {
    const roleId = Object.entries(resources).find(([id, r]) =>
      r.Type === 'AWS::IAM::Role' && id.startsWith('ReleaseSchedulingExecutionRole'))![0];
    const trust = resources[roleId].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([expect.objectContaining({
      Principal: { Service: 'scheduler.amazonaws.com' },
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/^ReleaseSchedulingGroup/), 'Arn'] } } },
    })]);
    const granted = statements().filter(({ where }) => resources[where].Properties.Roles?.some((r: Json) => r.Ref === roleId));
    expect(granted.map(({ statement }) => [statement.Action, statement.Resource]))
      .toEqual([['lambda:InvokeFunction', getAtt(stack.functions.release.function)]]);
  });

  it("the release function's reserved concurrency caps its gateway calls, and its ARN in the environment is its own", () => {
    const release = resources[logicalId(stack.functions.release.function)].Properties;
    expect(release.ReservedConcurrentExecutions).toBe(DEFAULT_RELEASE_CONCURRENCY);
    const arn = JSON.stringify(release.Environment.Variables[RUNTIME_ENV.releaseFunctionArn]);
    expect(arn).toContain(`:function:${release.FunctionName}`);
  });
});

describe('IAM', () => {
  it('grants no action on `*`, nothing on resource `*`, and no wildcard actions', () => {
    const all = statements();
    expect(all.length).toBeGreaterThan(0);
    for (const { where, statement } of all) {
      const context = `${where}: ${JSON.stringify(statement)}`;
      for (const action of list(statement.Action)) expect([context, action]).not.toEqual([context, expect.stringMatching(/\*/)]);
      for (const resource of list(statement.Resource)) expect([context, resource]).not.toEqual([context, '*']);
    }
  });

  it('scheduler actions reach only schedules of the release group; iam:PassRole only its execution role, only to Scheduler', () => {
    const scheduling = statements().filter(({ statement }) => list(statement.Action).some((a) => a.startsWith('scheduler:')));
    expect(scheduling.length).toBeGreaterThan(0);
    for (const { statement } of scheduling) {
      expect(JSON.stringify(statement.Resource)).toMatch(new RegExp(`:schedule/${RELEASE_SCHEDULE_GROUP}/\\*"`));
    }
    const passRole = statements().filter(({ statement }) => list(statement.Action).includes('iam:PassRole'));
    expect(passRole.length).toBeGreaterThan(0);
    for (const { statement } of passRole) {
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ReleaseSchedulingExecutionRole/), 'Arn'] });
      expect(statement.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    }
  });

  it('the functions that plan releases may create, update and delete release schedules; the api (webhook) may only delete them', () => {
    const creates = ['iam:PassRole', 'scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'];
    const expected: Record<FunctionRole, string[]> = {
      orderEvents: creates, release: creates, sweep: creates, api: ['scheduler:DeleteSchedule'],
    };
    for (const role of Object.keys(expected) as FunctionRole[]) {
      const actions = statementsOf(role).flatMap((s) => list(s.Action)).filter((a) => a.startsWith('scheduler:') || a.startsWith('iam:'));
      expect([role, [...actions].sort()]).toEqual([role, expected[role]]);
    }
  });

  it("every resource is one of this stack's own (or its index or version), the release group's schedules, or the bus", () => {
    const own = (value: unknown): boolean => {
      const id = (value as Json)?.['Fn::GetAtt']?.[0];
      return typeof id === 'string' && id in resources && (value as Json)['Fn::GetAtt'][1] === 'Arn';
    };
    const scopedArn = (suffix: string): Json => ({ 'Fn::Join': ['', [
      'arn:', { Ref: 'AWS::Partition' }, `:${suffix.split(':')[0]}:`, { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${suffix.split(':')[1]}`,
    ]] });
    const allowed = [scopedArn(`scheduler:schedule/${RELEASE_SCHEDULE_GROUP}/*`), scopedArn(`events:event-bus/${DEFAULT_EVENT_BUS}`)];
    for (const { where, statement } of statements()) {
      for (const resource of list(statement.Resource)) {
        const parts = (resource as Json)?.['Fn::Join']?.[1];
        const ok = own(resource)
          || allowed.some((a) => JSON.stringify(a) === JSON.stringify(resource))
          || (Array.isArray(parts) && parts.length === 2 && own(parts[0]) && ['/index/*', ':*'].includes(parts[1]));
        expect([where, resource, ok]).toEqual([where, resource, true]);
      }
    }
  });

  it('uses no AWS managed policies (their log permissions are on `*`)', () => {
    for (const [, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('HTTP API', () => {
  it('every route needs IAM authorisation except the signed gateway webhook', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(['ANY /{proxy+}', 'POST /webhooks/gateway']);
    for (const route of routes) {
      expect([route.RouteKey, route.AuthorizationType])
        .toEqual([route.RouteKey, route.RouteKey === 'POST /webhooks/gateway' ? 'NONE' : 'AWS_IAM']);
    }
  });

  it('proxies to the api function and logs every request', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: getAtt(stack.functions.api.function),
      PayloadFormatVersion: '2.0',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
    });
  });
});

describe('functions', () => {
  it('run Node.js 24 on arm64 with their own log groups', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(4);
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.any(String) });
    }
  });

  it("each gets an environment composition-root.ts accepts, with the gateway credentials as Secrets Manager references", () => {
    const placeholders = (value: unknown): string => {
      // Deploy-time values as the function would see them: any string (here the token's JSON, so that it can be
      // compared), except the URL the parameter constrains.
      if (typeof value === 'string') return value;
      return JSON.stringify(value).includes('"GatewayBaseUrl"') ? 'https://api.example.com' : JSON.stringify(value);
    };
    const known = new Set<string>([...Object.values(RUNTIME_ENV), 'NODE_OPTIONS']);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const variables: Json = fn.Properties.Environment.Variables;
      // A misspelt optional variable would pass readRuntimeConfig silently and leave its default in force.
      expect([id, Object.keys(variables).filter((name) => !known.has(name))]).toEqual([id, []]);
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, placeholders(v)]));
      const config = readRuntimeConfig({ ...env, AWS_REGION: 'ap-south-1' });
      expect([id, config.eventBus, config.orderEventSource, config.scheduler.groupName, config.scheduler.schedulerRoleArn]).toEqual([
        id, DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, RELEASE_SCHEDULE_GROUP,
        expect.stringMatching(/^\{"Fn::GetAtt":\["ReleaseSchedulingExecutionRole[0-9A-F]{8}","Arn"\]\}$/),
      ]);
      for (const [name, key] of [[RUNTIME_ENV.gatewayClientSecret, 'clientSecret'], [RUNTIME_ENV.gatewayClientId, 'clientId']]) {
        const parts: unknown[] = variables[name]['Fn::Join'][1];
        expect([id, parts[0], parts[2]]).toEqual([id, '{{resolve:secretsmanager:', `:SecretString:${key}::}}`]);
      }
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('passes, with every remaining finding acknowledged with a reason', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const findings = report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });
});

describe('context', () => {
  const nodeWith = (context: Record<string, unknown>) => new App({ context }).node;

  it('defaults to the default bus, the marketplace source and the default release concurrency', () => {
    expect(holdbackPropsFromContext(nodeWith({}))).toEqual({
      eventBusName: 'default', orderEventSource: DEFAULT_EVENT_SOURCE, gatewayBaseUrl: undefined, gatewaySecretName: undefined,
      gatewaySecretVersionId: undefined,
      releaseConcurrency: DEFAULT_RELEASE_CONCURRENCY,
    });
  });

  it('reads the release concurrency as a number, from text (-c), or "none"', () => {
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: '4' })).releaseConcurrency).toBe(4);
    expect(holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: 'none' })).releaseConcurrency).toBeNull();
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: 0 })))
      .toThrow(/holdback:releaseConcurrency is 0; send a whole number of at least 1 .* or "none"/);
  });

  it('treats a blank value as unset, and names the key of a value of the wrong type', () => {
    const blank = holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.eventBusName]: ' ', [CONTEXT_KEYS.releaseConcurrency]: ' ' }));
    expect([blank.eventBusName, blank.releaseConcurrency]).toEqual(['default', DEFAULT_RELEASE_CONCURRENCY]);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.releaseConcurrency]: true })))
      .toThrow(/holdback:releaseConcurrency is true; send a whole number/);
    expect(() => holdbackPropsFromContext(nodeWith({ [CONTEXT_KEYS.orderEventSource]: 7 })))
      .toThrow(/holdback:orderEventSource is 7; send a string, e.g. -c holdback:orderEventSource=value/);
  });
});

describe('bundling', () => {
  it('bundles a handler locally with esbuild into a CommonJS file that loads in plain Node and exports `handler`', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdback-bundle-'));
    try {
      const app = new App({ outdir, builtinCloudFormationValidation: false });
      const bundled = new Stack(app, 'Bundled');
      new HoldbackFunction(bundled, 'Release', { handlerFile: 'release', description: 'bundling test', timeout: Duration.seconds(5) });
      const assembly = app.synth();
      const code = Template.fromStack(bundled).toJSON().Resources;
      const fn = Object.values(code as Record<string, Json>).find((r) => r.Type === 'AWS::Lambda::Function')!;
      const assetDir = path.join(assembly.directory, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
      expect(fs.readdirSync(assetDir).sort()).toEqual(['index.js', 'index.js.map']);
      const exported = execFileSync(process.execPath, ['-e', `process.stdout.write(typeof require(${JSON.stringify(path.join(assetDir, 'index.js'))}).handler)`], {
        env: { PATH: process.env.PATH ?? '' },
      }).toString();
      expect(exported).toBe('function');
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
