/**
 * The upgrade path's index stages (holdback:ordersIndexes): DynamoDB, and so CloudFormation, creates or deletes one
 * global secondary index per table per update, so each documented stage changes exactly one index of the orders table
 * against the one before; the first is the old stack's indexes, the last this version's default.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HoldbackTable, LEGACY_INDEXES, ORDERS_UPGRADE_STAGES } from '../../lib/holdback-table';
import { HoldbackStack } from '../../lib/holdback-stack';
import { CONTEXT_KEYS, holdbackPropsFromContext } from '../../lib/holdback-context';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function ordersIndexes(context: Record<string, unknown>): Map<string, string> {
  const props = holdbackPropsFromContext(new App({ context }).node);
  const stack = new Stack(new App(), 'T');
  new HoldbackTable(stack, 'Orders', {
    name: 'orders',
    ...(props.dueIndexProjection ? { projections: { due: props.dueIndexProjection } } : {}),
    ...(props.ordersIndexes ? { indexes: props.ordersIndexes.filter((i) => !LEGACY_INDEXES[i]), legacy: props.ordersIndexes.filter((i) => LEGACY_INDEXES[i]).map((i) => LEGACY_INDEXES[i]) } : {}),
  });
  const table = Object.values(Template.fromStack(stack).toJSON().Resources as Record<string, Json>).find((r) => r.Type === 'AWS::DynamoDB::Table');
  return new Map((table.Properties.GlobalSecondaryIndexes as Json[]).map((i) => [i.IndexName, JSON.stringify([i.KeySchema, i.Projection])]));
}

const changes = (a: Map<string, string>, b: Map<string, string>): string[] => [
  ...[...a.keys()].filter((k) => !b.has(k)).map((k) => `-${k}`),
  ...[...b.keys()].filter((k) => !a.has(k)).map((k) => `+${k}`),
  ...[...a.keys()].filter((k) => b.has(k) && a.get(k) !== b.get(k)).map((k) => `~${k}`),
];

test('each stage changes exactly one index of the orders table; the first is the old stack, the last the default', () => {
  const legacy = { [CONTEXT_KEYS.dueIndexProjection]: 'ALL' };
  const stages = ORDERS_UPGRADE_STAGES.map((value) => ordersIndexes({ ...legacy, [CONTEXT_KEYS.ordersIndexes]: value }));
  expect([...stages[0].keys()]).toEqual(['due', 'byVendor']);
  expect(JSON.parse(stages[0].get('due')!)[1]).toEqual({ ProjectionType: 'ALL' });
  expect(JSON.parse(stages[0].get('byVendor')!)).toEqual([[{ AttributeName: 'vendorPk', KeyType: 'HASH' }, { AttributeName: 'vendorSk', KeyType: 'RANGE' }], { ProjectionType: 'ALL' }]);
  for (let i = 1; i < stages.length; i += 1) {
    expect([ORDERS_UPGRADE_STAGES[i], changes(stages[i - 1], stages[i]).length]).toEqual([ORDERS_UPGRADE_STAGES[i], 1]);
  }
  expect([...stages.at(-1)!.entries()]).toEqual([...ordersIndexes(legacy).entries()]);
});

test('a stage naming an unknown index, or leaving out the due index, is refused naming the value and what to send', () => {
  const props = (value: string) => holdbackPropsFromContext(new App({ context: { [CONTEXT_KEYS.ordersIndexes]: value } }).node);
  expect(() => props('due,byVendr')).toThrow(/holdback:ordersIndexes names "byVendr"; send indexes among due, openByVendor, paidByMonth, appliedByMonth, settledByMonth, unsentByVendor, byVendor, openPlanByVendor, planByVendor,/);
  expect(() => props('byVendor,openByVendor')).toThrow(/without due; the sweep reads it: send e.g. -c holdback:ordersIndexes=due,byVendor,openByVendor/);
  expect(props(' due , byVendor ').ordersIndexes).toEqual(['due', 'byVendor']);
});

test('the stack passes the stage to its orders table: stage 0 deploys this version on the old indexes', () => {
  const context = { 'aws:cdk:bundling-stacks': [], [CONTEXT_KEYS.dueIndexProjection]: 'ALL', [CONTEXT_KEYS.ordersIndexes]: ORDERS_UPGRADE_STAGES[0] };
  const app = new App({ context });
  const { stackName: _n, region: _r, ...props } = holdbackPropsFromContext(app.node);
  const stack = new HoldbackStack(app, 'Upgrading', props);
  const table = Template.fromStack(stack).toJSON().Resources[stack.getLogicalId(stack.tables.orders.table.node.defaultChild as never)];
  expect((table.Properties.GlobalSecondaryIndexes as Json[]).map((i) => i.IndexName)).toEqual(['due', 'byVendor']);
});
