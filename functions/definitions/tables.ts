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
  /** The attribute DynamoDB's TTL reads (epoch seconds); absent on tables whose items never expire. */
  timeToLiveAttribute?: string;
  /**
   * DynamoDB's table class on AWS (the local edge has none): Standard unless named. Standard-IA stores for 60% less and
   * charges 25% more per request, so it pays for a table that is kept long and read little (README "The bill").
   */
  tableClass?: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
}

/**
 * Items that may expire carry this attribute (epoch seconds): order events, orders with their releases, rejected
 * events, each after its kind's retention (a setting of the stack, HOLDBACK_RETENTION_DAYS). Settings and policy
 * versions and the audit log never carry it.
 */
export const TTL_ATTRIBUTE = 'expiresAt';
/**
 * The config table's TTL attribute (epoch seconds), carried by previews alone (their `expiresAt` is the ISO time the
 * API shows): an expired preview is refused by its readers and later removed by DynamoDB.
 */
export const PREVIEW_EXPIRY_ATTRIBUTE = 'expiresAtEpoch';

/** Attribute and index names shared by the table definitions and the repositories. */
export const KEY = { pk: 'pk', sk: 'sk' } as const;
/**
 * Sparse index of releases with a pending send: set only while `sendAt` is non-null, its key set once when a send time
 * is known (a claim keeps it, see order-repository's dueSortKey) and removed once. Keys only: a write that leaves the
 * key alone (a claim, a recorded send) writes no entry; the sweep reads the releases it lists from the table.
 */
export const DUE_INDEX = { name: 'due', pk: 'duePk', sk: 'dueSk' } as const;
/*
 * The read side's indexes (outcomes, forecasts, vendors, accuracy). Each is sparse and narrow, and its keys are set by
 * the one write that makes them true and never rewritten, so an index is written about once per release in its life
 * instead of on every state change: DynamoDB writes an index entry only when the item's index key or projected
 * attributes change. Month partitions (India time) keep a range query to a few partitions.
 */
/**
 * Open releases by vendor (money not yet settled or cancelled), ordered by maximum eligibility (never changes, and
 * bounds the eligibility the gateway will settle them after: a forecast's range reads by it, see openReleases), so an
 * entry is written when the release is created and deleted when it settles or is cancelled, nothing in between.
 * Projects `amount` and `currency` (never change) so a vendor's open amount is summed from the index alone. Read by
 * forecasts, GET /vendors, previews, holds.
 */
export const OPEN_INDEX = { name: 'openByVendor', pk: 'openPk', sk: 'openSk', include: ['amount', 'currency'] } as const;
/**
 * The vendor's unsent releases as previews read them: sparse, an entry only while a release waits to be sent
 * (PLANNED, SCHEDULED, WAITING, HELD, AT_MAX by its rule: the domain's isUnsent), keyed as the open index
 * (`planPk`/`planSk` carry the open index's values, set by releaseIndexKeys), and projecting only what can change a
 * preview's answer (open-index-counts.ts PREVIEW_FIELDS says why each field is there and why the others are not):
 * the money, the state and why (holdReason, reasonCode), the rule the release is pinned to (rule, scheduleOption, a
 * manual release), its window (transactionTime; the maximum eligibility is the sort key's time) and its target, and
 * its version (a previewId over at most 1,000 releases names each with it). About 300 bytes an entry where its
 * predecessor `planByVendor` (WIDE_PLAN_INDEX, the same keys) projected every planning field, about 650: a preview of
 * 100,000 releases sends, checks and parses half the bytes. Its price is its predecessor's: an entry written when a
 * release is planned, again when a write changes what it projects (a delivery, a hold), and deleted at the claim
 * (7 index writes an order of three vendors). Added by its own upgrade stage (lib/holdback-table.ts), which DynamoDB
 * fills from the keys every unsent release already carries; read once `planByVendor` is gone.
 */
export const PLAN_INDEX = {
  name: 'unsentByVendor', pk: 'planPk', sk: 'planSk',
  include: ['amount', 'currency', 'state', 'holdReason', 'reasonCode', 'rule', 'scheduleOption', 'manual', 'transactionTime', 'targetEligibility', 'version'],
} as const;
/** What the planning indexes before PLAN_INDEX projected: every field of a stored release but the gateway's answers. */
const WIDE_PLANNING_FIELDS = [
  'nulls', 'amount', 'state', 'policyVersion', 'rule', 'scheduleOption', 'transactionTime', 'maxEligibility', 'targetEligibility',
  'sendAt', 'releaseKey', 'appliedEligibility', 'predictedSettlement', 'clamp', 'sends', 'reason', 'reasonCode', 'waitReason',
  'exposure', 'settledAt', 'holdReason', 'plannedSendAt', 'manual', 'orderNotFoundSince', 'currency', 'version', 'updatedAt',
] as const;
/**
 * The planning index before PLAN_INDEX (kept by the upgrade until its last stage, lib/holdback-table.ts): the same
 * sparse keys, every planning field projected.
 */
export const WIDE_PLAN_INDEX = { name: 'planByVendor', pk: PLAN_INDEX.pk, sk: PLAN_INDEX.sk, include: WIDE_PLANNING_FIELDS } as const;
/**
 * The planning index before WIDE_PLAN_INDEX (kept by the upgrade until its stage, lib/holdback-table.ts): the open
 * index's keys, so an entry for every open release, rewritten with each of its writes (16 index writes an order of
 * three vendors against 7).
 */
export const LEGACY_PLAN_INDEX = { name: 'openPlanByVendor', pk: OPEN_INDEX.pk, sk: OPEN_INDEX.sk, include: WIDE_PLANNING_FIELDS } as const;
/** Paid orders (the `META` item, one entry per order) by transaction time; projects the vendors and their amounts. */
export const PAID_INDEX = { name: 'paidByMonth', pk: 'paidPk', sk: 'paidSk', include: ['vendors'] } as const;
/** Releases applied at the gateway, by applied eligibility. Keys only. */
export const APPLIED_INDEX = { name: 'appliedByMonth', pk: 'appliedPk', sk: 'appliedSk' } as const;
/** Releases the gateway reported settled, by settlement time. Keys only. */
export const SETTLED_INDEX = { name: 'settledByMonth', pk: 'settledPk', sk: 'settledSk' } as const;
/**
 * Four-eyes approvals (contract 6.4) in the config table by state, newest first: the key is rewritten by each decision
 * (pending → approved, rejected or expired), so `GET /approvals?state=` and the expiry sweep query one state's
 * partition instead of scanning. Approvals are a few a day, so one partition per state is enough.
 */
export const APPROVAL_INDEX = { name: 'approvalsByState', pk: 'approvalState', sk: 'approvalSk' } as const;
/**
 * Number of partitions of the due index. Every pending release would otherwise share one index partition key; eight
 * shards spread the sweep's hot key while keeping `listDue` to eight small queries.
 */
export const DUE_SHARDS = 8;
/**
 * Partitions of one vendor's open index (`OPEN#<vendorId>#<shard>`, the shard from the order id). A vendor on every
 * order writes an entry per new release, in the order of maximum eligibility (a rising key, which DynamoDB's split for
 * heat cannot spread): one partition takes about 1,000 writes a second, so a flash sale of 2,000 orders a second with
 * one vendor on each would throttle a single partition. Eight take 8,000 a second; readers fan out over all eight in
 * parallel (and over `OPEN#<vendorId>`, where releases written before the shards were keep their entry until their
 * next write moves it). See docs/scale.md.
 */
export const OPEN_SHARDS = 8;

const stringAttributes = (...names: string[]): AttributeDefinition[] =>
  names.map((name) => ({ AttributeName: name, AttributeType: 'S' }));

const hashRange = (pk: string, sk: string): KeySchemaElement[] => [
  { AttributeName: pk, KeyType: 'HASH' },
  { AttributeName: sk, KeyType: 'RANGE' },
];

/**
 * - orders: `ORDER#id`/`META` (OrderRecord), `ORDER#id`/`EVENT#key` (StoredEvent), `ORDER#id`/`VENDOR#vid`
 *   (VendorRelease), with the due, open, applied and settled indexes over the releases and the paid index over `META`.
 *   `VENDORS`/`VENDOR#vid`: every vendor Holdback has seen in an order or a policy (GET /vendors).
 * - config: `SETTINGS`/`CURRENT` (the settings in force) and `SETTINGS`/`V#0000000001` (every version); the same for
 *   each vendor's policy under `POLICY#vid` (see versioned-items.ts), with the vendor's hold at `POLICY#vid`/`HOLD`;
 *   `PREVIEW#id`/`PREVIEW` (policy and settings previews), `IMPORT#digest`/`IMPORT` (the policy imports' journal),
 *   `APPROVAL#id`/`APPROVAL` (four-eyes approvals, with the state index).
 * - rejected: `REJECTED`/`SEQ#<arrival number>` (rejected events, listed newest first), `REJECTED_ID`/`<id>` (one
 *   marker per event id) and `REJECTED_COUNT`/`COUNT` (the arrival counter); see rejected-event-repository.ts.
 */
export const TABLES: Record<TableName, TableDefinition> = {
  orders: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(
      KEY.pk, KEY.sk, DUE_INDEX.pk, DUE_INDEX.sk, OPEN_INDEX.pk, OPEN_INDEX.sk, PAID_INDEX.pk, PAID_INDEX.sk,
      APPLIED_INDEX.pk, APPLIED_INDEX.sk, SETTLED_INDEX.pk, SETTLED_INDEX.sk, PLAN_INDEX.pk, PLAN_INDEX.sk,
    ),
    globalSecondaryIndexes: [
      { IndexName: DUE_INDEX.name, KeySchema: hashRange(DUE_INDEX.pk, DUE_INDEX.sk), Projection: { ProjectionType: 'KEYS_ONLY' } },
      {
        IndexName: OPEN_INDEX.name,
        KeySchema: hashRange(OPEN_INDEX.pk, OPEN_INDEX.sk),
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...OPEN_INDEX.include] },
      },
      {
        IndexName: PAID_INDEX.name,
        KeySchema: hashRange(PAID_INDEX.pk, PAID_INDEX.sk),
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...PAID_INDEX.include] },
      },
      { IndexName: APPLIED_INDEX.name, KeySchema: hashRange(APPLIED_INDEX.pk, APPLIED_INDEX.sk), Projection: { ProjectionType: 'KEYS_ONLY' } },
      { IndexName: SETTLED_INDEX.name, KeySchema: hashRange(SETTLED_INDEX.pk, SETTLED_INDEX.sk), Projection: { ProjectionType: 'KEYS_ONLY' } },
      {
        IndexName: PLAN_INDEX.name,
        KeySchema: hashRange(PLAN_INDEX.pk, PLAN_INDEX.sk),
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...PLAN_INDEX.include] },
      },
    ],
    billingMode: 'PAY_PER_REQUEST',
    timeToLiveAttribute: TTL_ATTRIBUTE,
  },
  config: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(KEY.pk, KEY.sk, APPROVAL_INDEX.pk, APPROVAL_INDEX.sk),
    globalSecondaryIndexes: [
      { IndexName: APPROVAL_INDEX.name, KeySchema: hashRange(APPROVAL_INDEX.pk, APPROVAL_INDEX.sk), Projection: { ProjectionType: 'ALL' } },
    ],
    billingMode: 'PAY_PER_REQUEST',
    // Only previews carry it: settings, policy versions, holds and imports are kept for ever.
    timeToLiveAttribute: PREVIEW_EXPIRY_ATTRIBUTE,
  },
  rejected: {
    keySchema: hashRange(KEY.pk, KEY.sk),
    attributeDefinitions: stringAttributes(KEY.pk, KEY.sk),
    globalSecondaryIndexes: [],
    billingMode: 'PAY_PER_REQUEST',
    timeToLiveAttribute: TTL_ATTRIBUTE,
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
export function createTableInputs(names: TableNames = DEFAULT_TABLE_NAMES, auditTable: string = DEFAULT_AUDIT_TABLE_NAME): CreateTableCommandInput[] {
  const definitions: [string, TableDefinition][] = [
    ...(Object.keys(TABLES) as TableName[]).map((name): [string, TableDefinition] => [names[name], TABLES[name]]),
    [auditTable, AUDIT_TABLE],
  ];
  return definitions.map(([tableName, table]) => ({
    TableName: tableName,
    KeySchema: table.keySchema,
    AttributeDefinitions: table.attributeDefinitions,
    BillingMode: table.billingMode,
    ...(table.globalSecondaryIndexes.length > 0 ? { GlobalSecondaryIndexes: table.globalSecondaryIndexes } : {}),
  }));
}

/** Records of the audit log by the UTC day they were stored (sharded), ordered by that time: checkpoints find what moved. */
export const AUDIT_TIME_INDEX = { name: 'byTime', pk: 'timePk', sk: 'timeSk' } as const;
/** A busy day's records spread over this many index partitions; the checkpoint writer reads each. */
export const AUDIT_TIME_SHARDS = 8;

/**
 * The audit log (contract 6.2); the stack builds it beside TABLES' (lib/holdback-table.ts). Never a TTL on it: an
 * audit record is kept until someone deletes it, and a deletion shows. Standard-IA: each record is written once and
 * read rarely (a stream's head, checkpoints, verify and export) but kept for ever, so its storage outweighs its requests
 * after about two months (README "The bill").
 * - records: pk the stream (`order#<id>`, `vendor#<id>`, `config`), sk the sequence zero-padded to 12 digits;
 * - checkpoints: pk `checkpoints`, sk the number zero-padded; entries waiting after a failed append: pk `pending`.
 */
export const AUDIT_TABLE: TableDefinition = {
  keySchema: hashRange(KEY.pk, KEY.sk),
  attributeDefinitions: stringAttributes(KEY.pk, KEY.sk, AUDIT_TIME_INDEX.pk, AUDIT_TIME_INDEX.sk),
  globalSecondaryIndexes: [
    { IndexName: AUDIT_TIME_INDEX.name, KeySchema: hashRange(AUDIT_TIME_INDEX.pk, AUDIT_TIME_INDEX.sk), Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['sequence', 'hash'] } },
  ],
  billingMode: 'PAY_PER_REQUEST',
  tableClass: 'STANDARD_INFREQUENT_ACCESS',
};
export const AUDIT_TABLE_ENV = 'HOLDBACK_AUDIT_TABLE';
/** The write-once copy's S3 bucket (AWS; the stack sets it on the copier, the API and the jobs function). */
export const AUDIT_ARCHIVE_BUCKET_ENV = 'HOLDBACK_AUDIT_ARCHIVE_BUCKET';
export const DEFAULT_AUDIT_TABLE_NAME = 'holdback-audit';

/** The audit table's partition of the checkpoints and of the entries waiting for a later append (no stream has these names). */
export const CHECKPOINT_PK = 'checkpoints';
export const PENDING_PK = 'pending';
/** The partition of the checkpoint writer's pointers: the head it last signed of each stream (sort key: the stream). */
export const SIGNED_PK = 'signed';
