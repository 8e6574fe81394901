/** A DynamoDB table built from its one definition in functions/definitions/tables.ts. */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, Projection } from '@aws-sdk/client-dynamodb';
import { Construct } from 'constructs';
import {
  AUDIT_TABLE, AUDIT_TABLE_ENV, LEGACY_PLAN_INDEX, TABLE_ENV, TABLES, WIDE_PLAN_INDEX, type TableDefinition, type TableName,
} from '../functions/definitions/tables';

/** Holdback's tables: those of TABLES, and the audit log's. */
export type StackTableName = TableName | 'audit';

/** Each table's one definition and the variable that names it, as the functions read them. */
export const STACK_TABLES: Record<StackTableName, { definition: TableDefinition; environmentVariable: string }> = {
  ...Object.fromEntries((Object.keys(TABLES) as TableName[]).map((name) => [name, { definition: TABLES[name], environmentVariable: TABLE_ENV[name] }])) as Record<TableName, { definition: TableDefinition; environmentVariable: string }>,
  audit: { definition: AUDIT_TABLE, environmentVariable: AUDIT_TABLE_ENV },
};

const ATTRIBUTE_TYPES: Record<string, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
  B: dynamodb.AttributeType.BINARY,
};

export interface HoldbackTableProps {
  /** Which of Holdback's tables this is. */
  readonly name: StackTableName;
  /** Index projections that differ from the table definition's (a deployed index keeps the projection it was created with). */
  readonly projections?: Record<string, 'ALL' | 'KEYS_ONLY'>;
  /**
   * The upgrade's stages (holdback:ordersIndexes): only these of the definition's indexes, plus the legacy ones named
   * in `legacy` kept until their last stage. DynamoDB (and so CloudFormation) creates or deletes one global secondary
   * index per table per update. Default: every index of the definition, no legacy one.
   */
  readonly indexes?: readonly string[];
  readonly legacy?: readonly GlobalSecondaryIndex[];
}

/**
 * Indexes of earlier versions that an upgrade keeps until its last stage: the orders table's `byVendor` (vendorPk,
 * vendorSk; all attributes), replaced by openByVendor (nothing reads it any more), `openPlanByVendor` (the open
 * index's keys, the planner's fields), replaced by the sparse planByVendor: previews read it while it exists, since
 * the new one is complete only once the backfill has given the older unsent releases its keys; and `planByVendor`
 * (those sparse keys, every planning field), replaced by the narrow unsentByVendor over the same keys: previews read
 * it while it exists, since a new index cannot be queried until DynamoDB has filled it.
 */
export const LEGACY_INDEXES: Record<string, GlobalSecondaryIndex> = {
  byVendor: {
    IndexName: 'byVendor',
    KeySchema: [{ AttributeName: 'vendorPk', KeyType: 'HASH' }, { AttributeName: 'vendorSk', KeyType: 'RANGE' }],
    Projection: { ProjectionType: 'ALL' },
  },
  [LEGACY_PLAN_INDEX.name]: {
    IndexName: LEGACY_PLAN_INDEX.name,
    KeySchema: [{ AttributeName: LEGACY_PLAN_INDEX.pk, KeyType: 'HASH' }, { AttributeName: LEGACY_PLAN_INDEX.sk, KeyType: 'RANGE' }],
    Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...LEGACY_PLAN_INDEX.include] },
  },
  [WIDE_PLAN_INDEX.name]: {
    IndexName: WIDE_PLAN_INDEX.name,
    KeySchema: [{ AttributeName: WIDE_PLAN_INDEX.pk, KeyType: 'HASH' }, { AttributeName: WIDE_PLAN_INDEX.sk, KeyType: 'RANGE' }],
    Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...WIDE_PLAN_INDEX.include] },
  },
};
/**
 * The upgrade from a stack with the orders table's `due` (all attributes) and `byVendor` indexes to this version's six,
 * one index change per deploy (README, runbook "Upgrade"): each stage is a `holdback:ordersIndexes` value. Stage 0
 * deploys this version's code on the old indexes (then the backfill runs); the last stage equals the default.
 */
export const ORDERS_UPGRADE_STAGES: readonly string[] = [
  'due,byVendor',
  'due,byVendor,openByVendor',
  'due,byVendor,openByVendor,paidByMonth',
  'due,byVendor,openByVendor,paidByMonth,appliedByMonth',
  'due,byVendor,openByVendor,paidByMonth,appliedByMonth,settledByMonth',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth,openPlanByVendor',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth,openPlanByVendor,planByVendor',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth,planByVendor',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth,planByVendor,unsentByVendor',
  'due,openByVendor,paidByMonth,appliedByMonth,settledByMonth,unsentByVendor',
];
const LEGACY_ATTRIBUTES: AttributeDefinition[] = [{ AttributeName: 'vendorPk', AttributeType: 'S' }, { AttributeName: 'vendorSk', AttributeType: 'S' }];

/**
 * Physical names are left to CloudFormation (the functions get them through `TABLE_ENV`), so that two stacks can
 * share an account. Tables are retained and deletion-protected: they hold the audit trail of every release.
 */
export class HoldbackTable extends Construct {
  readonly table: dynamodb.Table;
  readonly name: StackTableName;
  readonly definition: TableDefinition;
  /** The environment variable that carries this table's physical name to the functions. */
  readonly environmentVariable: string;

  constructor(scope: Construct, id: string, props: HoldbackTableProps) {
    super(scope, id);
    this.name = props.name;
    const { definition, environmentVariable } = STACK_TABLES[props.name];
    this.definition = definition;
    this.environmentVariable = environmentVariable;
    const keys = keysOf(definition.keySchema, definition.attributeDefinitions, props.name);
    this.table = new dynamodb.Table(this, 'Table', {
      ...keys,
      billingMode: billingModeOf(definition.billingMode),
      tableClass: definition.tableClass === 'STANDARD_INFREQUENT_ACCESS' ? dynamodb.TableClass.STANDARD_INFREQUENT_ACCESS : dynamodb.TableClass.STANDARD,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(definition.timeToLiveAttribute ? { timeToLiveAttribute: definition.timeToLiveAttribute } : {}),
    });
    const staged = definition.globalSecondaryIndexes.filter((index) => !props.indexes || props.indexes.includes(index.IndexName ?? ''));
    for (const index of [...staged, ...(props.legacy ?? [])]) {
      const where = `${props.name} index ${index.IndexName}`;
      const indexName = required(index.IndexName, `${where}: IndexName`);
      const kept = props.projections?.[indexName];
      this.table.addGlobalSecondaryIndex({
        indexName,
        ...keysOf(required(index.KeySchema, `${where}: KeySchema`), [...definition.attributeDefinitions, ...LEGACY_ATTRIBUTES], where),
        ...projectionOf(kept ? { ProjectionType: kept } : index.Projection, where),
      });
    }
  }
}

function keysOf(keySchema: KeySchemaElement[], attributes: AttributeDefinition[], where: string): {
  partitionKey: dynamodb.Attribute; sortKey?: dynamodb.Attribute;
} {
  const attribute = (element: KeySchemaElement | undefined): dynamodb.Attribute | undefined => {
    if (!element) return undefined;
    const name = required(element.AttributeName, `${where}: AttributeName`);
    const declared = attributes.find((a) => a.AttributeName === name)?.AttributeType;
    const type = declared ? ATTRIBUTE_TYPES[declared] : undefined;
    if (!type) throw new Error(`${where}: key ${name} needs an AttributeDefinition of type S, N or B`);
    return { name, type };
  };
  const partitionKey = attribute(keySchema.find((k) => k.KeyType === 'HASH'));
  if (!partitionKey) throw new Error(`${where}: the key schema needs a HASH key`);
  const sortKey = attribute(keySchema.find((k) => k.KeyType === 'RANGE'));
  return sortKey ? { partitionKey, sortKey } : { partitionKey };
}

function projectionOf(projection: Projection | undefined, where: string): {
  projectionType: dynamodb.ProjectionType; nonKeyAttributes?: string[];
} {
  switch (projection?.ProjectionType ?? 'ALL') {
    case 'ALL': return { projectionType: dynamodb.ProjectionType.ALL };
    case 'KEYS_ONLY': return { projectionType: dynamodb.ProjectionType.KEYS_ONLY };
    case 'INCLUDE':
      return { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: projection?.NonKeyAttributes ?? [] };
    default: throw new Error(`${where}: projection ${String(projection?.ProjectionType)} is not ALL, KEYS_ONLY or INCLUDE`);
  }
}

function billingModeOf(mode: string): dynamodb.BillingMode {
  if (mode !== 'PAY_PER_REQUEST') throw new Error(`billing mode ${mode} is not supported; the tables are PAY_PER_REQUEST`);
  return dynamodb.BillingMode.PAY_PER_REQUEST;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing in tables.ts`);
  return value;
}
