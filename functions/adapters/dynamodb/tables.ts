/** Holdback's DynamoDB tables, defined once: the CDK stack and the local edge both build them from here. */
import type {
  AttributeDefinition, CreateTableCommandInput, GlobalSecondaryIndex, KeySchemaElement,
} from '@aws-sdk/client-dynamodb';

/** The logical tables; each gets a physical name from the environment (or the defaults). */
export type TableName = 'orders' | 'config' | 'rejected';
export type TableNames = Record<TableName, string>;

export interface TableDefinition {
  keySchema: KeySchemaElement[];
  attributeDefinitions: AttributeDefinition[];
  globalSecondaryIndexes: GlobalSecondaryIndex[];
  billingMode: 'PAY_PER_REQUEST';
}

/** Attribute and index names shared by the table definitions and the repositories. */
export const KEY = { pk: 'pk', sk: 'sk' } as const;
/** Sparse index of releases with a pending send: set only while `sendAt` is non-null. */
export const DUE_INDEX = { name: 'due', pk: 'duePk', sk: 'dueSk' } as const;
/** Index of releases by vendor, ordered by transaction time (UTC) then order id. */
export const VENDOR_INDEX = { name: 'byVendor', pk: 'vendorPk', sk: 'vendorSk' } as const;
/**
 * Number of partitions of the due index. Every pending release would otherwise share one index partition key; eight
 * shards spread the sweep's hot key while keeping `listDue` to eight small queries.
 */
export const DUE_SHARDS = 8;

const stringAttributes = (...names: string[]): AttributeDefinition[] =>
  names.map((name) => ({ AttributeName: name, AttributeType: 'S' }));

const hashRange = (pk: string, sk: string): KeySchemaElement[] => [
  { AttributeName: pk, KeyType: 'HASH' },
  { AttributeName: sk, KeyType: 'RANGE' },
];

/**
 * - orders: `ORDER#id`/`META` (OrderRecord), `ORDER#id`/`EVENT#key` (StoredEvent), `ORDER#id`/`VENDOR#vid`
 *   (VendorRelease), with the due and by-vendor indexes over the releases.
 * - config: `SETTINGS`/`CURRENT` (the settings in force) and `SETTINGS`/`V#0000000001` (every version); the same for
 *   each vendor's policy under `POLICY#vid` (see versioned-items.ts).
 * - rejected: `REJECTED`/`<at UTC>#<id>` (rejected events, listed newest first).
 */
export const TABLES: Record<TableName, TableDefinition> = {
  orders: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(
      KEY.pk, KEY.sk, DUE_INDEX.pk, DUE_INDEX.sk, VENDOR_INDEX.pk, VENDOR_INDEX.sk,
    ),
    globalSecondaryIndexes: [
      { IndexName: DUE_INDEX.name, KeySchema: hashRange(DUE_INDEX.pk, DUE_INDEX.sk), Projection: { ProjectionType: 'ALL' } },
      { IndexName: VENDOR_INDEX.name, KeySchema: hashRange(VENDOR_INDEX.pk, VENDOR_INDEX.sk), Projection: { ProjectionType: 'ALL' } },
    ],
    billingMode: 'PAY_PER_REQUEST',
  },
  config: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(KEY.pk, KEY.sk),
    globalSecondaryIndexes: [],
    billingMode: 'PAY_PER_REQUEST',
  },
  rejected: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(KEY.pk, KEY.sk),
    globalSecondaryIndexes: [],
    billingMode: 'PAY_PER_REQUEST',
  },
};

export const DEFAULT_TABLE_NAMES: TableNames = {
  orders: 'holdback-orders',
  config: 'holdback-config',
  rejected: 'holdback-rejected-events',
};

/** The environment variable that names each table at runtime. */
export const TABLE_ENV: Record<TableName, string> = {
  orders: 'HOLDBACK_ORDERS_TABLE',
  config: 'HOLDBACK_CONFIG_TABLE',
  rejected: 'HOLDBACK_REJECTED_TABLE',
};

/** Physical table names from the environment; an unset variable keeps the default name. */
export function tableNamesFromEnv(env: Record<string, string | undefined>): TableNames {
  const pick = (name: TableName): string => env[TABLE_ENV[name]]?.trim() || DEFAULT_TABLE_NAMES[name];
  return { orders: pick('orders'), config: pick('config'), rejected: pick('rejected') };
}

/** CreateTable requests for every table (the local edge and tests create the tables with these). */
export function createTableInputs(names: TableNames = DEFAULT_TABLE_NAMES): CreateTableCommandInput[] {
  return (Object.keys(TABLES) as TableName[]).map((name) => {
    const table = TABLES[name];
    return {
      TableName: names[name],
      KeySchema: table.keySchema,
      AttributeDefinitions: table.attributeDefinitions,
      BillingMode: table.billingMode,
      ...(table.globalSecondaryIndexes.length > 0 ? { GlobalSecondaryIndexes: table.globalSecondaryIndexes } : {}),
    };
  });
}
