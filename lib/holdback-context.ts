/** Reads the stack's settings from CDK context (`holdback:*` keys), naming the key and what to send when one is wrong. */
import type { Node } from 'constructs';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { DEFAULT_EVENT_SOURCE, RELEASE_QUEUE } from '../functions/definitions/routing';
import { checkProducer } from './event-intake';
import { LEGACY_INDEXES } from './holdback-table';
import { DUE_INDEX, TABLES } from '../functions/definitions/tables';
import {
  DEFAULT_CONCURRENCY_BUDGET, DEFAULT_RETENTION_DAYS, FUNCTION_ROLES, RETENTION_KINDS,
  type ConcurrencyBudget, type HoldbackStackProps, type RetentionDays,
} from './holdback-stack';

/** The context keys an operator may set in cdk.json or with `npx cdk deploy -c key=value`. */
export const CONTEXT_KEYS = {
  stackName: 'holdback:stackName',
  region: 'holdback:region',
  eventBusName: 'holdback:eventBusName',
  eventProducers: 'holdback:eventProducers',
  orderEventSource: 'holdback:orderEventSource',
  gatewayBaseUrl: 'holdback:gatewayBaseUrl',
  gatewaySecretName: 'holdback:gatewaySecretName',
  /** Gone: refused with why (releases run whenever the gateway secret holds the credentials). */
  releasesEnabled: 'holdback:releasesEnabled',
  releaseConcurrency: 'holdback:releaseConcurrency',
  concurrencyBudget: 'holdback:concurrencyBudget',
  accountConcurrencyLimit: 'holdback:accountConcurrencyLimit',
  retentionDays: 'holdback:retentionDays',
  alarmEmail: 'holdback:alarmEmail',
  dueIndexProjection: 'holdback:dueIndexProjection',
  auditPreviousKeyArns: 'holdback:auditPreviousKeyArns',
  ordersIndexes: 'holdback:ordersIndexes',
} as const;

/** A second stack in the same account takes another name (every name in it is scoped by it). */
export const DEFAULT_STACK_NAME = 'Holdback';
/** The gateway is in India: a region near it saves about 250 ms per send against us-east-1. */
export const DEFAULT_REGION = 'ap-south-1';
/** Lambda's standard concurrency quota; a new account may have 10 until it asks for more. */
export const DEFAULT_ACCOUNT_CONCURRENCY_LIMIT = 1000;
/** Lambda keeps at least this much concurrency unreserved (it refuses reservations that leave less). */
export const MIN_UNRESERVED_CONCURRENCY = 100;

type Settings = Omit<HoldbackStackProps, keyof import('aws-cdk-lib').StackProps>;

/** The account's Lambda concurrency limit as read from the account at synth (bin/app.ts, lib/deploy-preflight.ts). */
export interface AccountConcurrencyLimit {
  readonly value: number;
  /** Where it was read, for a refusal: e.g. `read from the account (Lambda GetAccountSettings in ap-south-1)`. */
  readonly from: string;
}

/** The deploy's region from context (the default ap-south-1), checked; what the preflight asks the account in. */
export function regionFromContext(node: Node): string {
  const value: unknown = node.tryGetContext(CONTEXT_KEYS.region);
  return regionOf(typeof value === 'string' && value.trim() !== '' ? value.trim() : DEFAULT_REGION);
}

/**
 * `accountLimit`: the account's own concurrency limit when the synth could read it (it then outweighs
 * `holdback:accountConcurrencyLimit`, which stays for an offline synth or a deployer who may not call
 * GetAccountSettings; unset, 1,000).
 */
export function holdbackPropsFromContext(node: Node, accountLimit?: AccountConcurrencyLimit): Settings & { stackName: string; region: string } {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      throw new Error(`context ${key} is ${JSON.stringify(value)}; send a string, e.g. -c ${key}=value`);
    }
    // Blank counts as unset, so that `-c key=` or a space falls back to the default rather than an empty name.
    return value.trim() || undefined;
  };
  if (booleanOf(node.tryGetContext(CONTEXT_KEYS.releasesEnabled), CONTEXT_KEYS.releasesEnabled) !== undefined) {
    throw new Error(
      `context ${CONTEXT_KEYS.releasesEnabled} is no longer read: releases run whenever the gateway secret holds the credentials ` +
      '(a deploy can no longer pause them); remove it. To pause releases on purpose, put the placeholder back in the secret (README, runbook)',
    );
  }
  const givenLimit = wholeNumberOf(node.tryGetContext(CONTEXT_KEYS.accountConcurrencyLimit), CONTEXT_KEYS.accountConcurrencyLimit, 1);
  const limit: AccountConcurrencyLimit = accountLimit ?? {
    value: givenLimit ?? DEFAULT_ACCOUNT_CONCURRENCY_LIMIT,
    from: givenLimit === undefined
      ? `the default: the account was not asked; pass -c ${CONTEXT_KEYS.accountConcurrencyLimit}=<its limit>, read with \`aws lambda get-account-settings\``
      : `${CONTEXT_KEYS.accountConcurrencyLimit}; read it with \`aws lambda get-account-settings\``,
  };
  const alarmEmail = text(CONTEXT_KEYS.alarmEmail);
  const dueIndexProjection = text(CONTEXT_KEYS.dueIndexProjection);
  if (dueIndexProjection !== undefined && dueIndexProjection !== 'KEYS_ONLY' && dueIndexProjection !== 'ALL') {
    throw new Error(`context ${CONTEXT_KEYS.dueIndexProjection} is "${dueIndexProjection}"; send KEYS_ONLY (the default) or ALL (only for a stack deployed before the due index became keys-only: DynamoDB cannot change an index's projection in place)`);
  }
  if (alarmEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(alarmEmail)) {
    throw new Error(`context ${CONTEXT_KEYS.alarmEmail} is "${alarmEmail}"; send an e-mail address, e.g. -c ${CONTEXT_KEYS.alarmEmail}=ops@example.com`);
  }
  return {
    stackName: text(CONTEXT_KEYS.stackName) ?? DEFAULT_STACK_NAME,
    region: regionOf(text(CONTEXT_KEYS.region) ?? DEFAULT_REGION),
    ...(text(CONTEXT_KEYS.eventBusName) ? { eventBusName: text(CONTEXT_KEYS.eventBusName) } : {}),
    eventProducers: producersOf(node.tryGetContext(CONTEXT_KEYS.eventProducers)),
    orderEventSource: text(CONTEXT_KEYS.orderEventSource) ?? DEFAULT_EVENT_SOURCE,
    gatewayBaseUrl: text(CONTEXT_KEYS.gatewayBaseUrl),
    gatewaySecretName: text(CONTEXT_KEYS.gatewaySecretName),
    releaseConcurrency: wholeNumberOf(node.tryGetContext(CONTEXT_KEYS.releaseConcurrency), CONTEXT_KEYS.releaseConcurrency, 2) ?? RELEASE_QUEUE.maximumConcurrency,
    concurrencyBudget: concurrencyBudgetOf(node.tryGetContext(CONTEXT_KEYS.concurrencyBudget), limit),
    retentionDays: retentionOf(node.tryGetContext(CONTEXT_KEYS.retentionDays)),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(dueIndexProjection ? { dueIndexProjection } : {}),
    ...previousKeys(text(CONTEXT_KEYS.auditPreviousKeyArns)),
    ...ordersIndexesOf(text(CONTEXT_KEYS.ordersIndexes)),
  };
}

/**
 * The upgrade's stages: the orders table's indexes for this deploy, comma-separated (one more or one fewer than the
 * deployed stack's: DynamoDB changes one index per update). `due` always (the sweep reads it); unset: all of them.
 */
function ordersIndexesOf(value: string | undefined): { ordersIndexes?: string[] } {
  if (!value) return {};
  const key = CONTEXT_KEYS.ordersIndexes;
  const known = [...TABLES.orders.globalSecondaryIndexes.map((i) => i.IndexName!), ...Object.keys(LEGACY_INDEXES)];
  const names = [...new Set(value.split(',').map((n) => n.trim()).filter((n) => n !== ''))];
  for (const name of names) {
    if (!known.includes(name)) throw new Error(`context ${key} names "${name}"; send indexes among ${known.join(', ')}, comma-separated (README, runbook "Upgrade")`);
  }
  if (!names.includes(DUE_INDEX.name)) throw new Error(`context ${key} is "${value}" without ${DUE_INDEX.name}; the sweep reads it: send e.g. -c ${key}=${DUE_INDEX.name},byVendor,openByVendor`);
  return { ordersIndexes: names };
}

/** ARNs of audit keys replaced before (comma-separated): kept listed and verifiable. */
function previousKeys(value: string | undefined): { auditPreviousKeyArns?: string[] } {
  if (!value) return {};
  const arns = value.split(',').map((arn) => arn.trim()).filter((arn) => arn !== '');
  for (const arn of arns) {
    if (!/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$/.test(arn)) {
      throw new Error(`context ${CONTEXT_KEYS.auditPreviousKeyArns} has "${arn}"; send KMS key ARNs (arn:aws:kms:<region>:<account>:key/<id>), comma-separated`);
    }
  }
  return { auditPreviousKeyArns: arns };
}

function booleanOf(value: unknown, key: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key} is ${JSON.stringify(value)}; send true or false`);
}

function wholeNumberOf(value: unknown, key: string, min: number): number | undefined {
  const text = typeof value === 'string' ? value.trim() : value;
  if (text === undefined || text === null || text === '') return undefined;
  // Only a number or its text: Number(true) would be 1.
  const count = typeof text === 'number' ? text : typeof text === 'string' ? Number(text) : Number.NaN;
  if (!Number.isInteger(count) || count < min) throw new Error(`context ${key} is ${JSON.stringify(value)}; send a whole number of at least ${min}`);
  return count;
}

/** JSON text or an object, e.g. `{"api": 20, "orderEvents": 50}`; `none` reserves nothing. */
function jsonObjectOf(value: unknown, key: string, example: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(`context ${key} is ${JSON.stringify(value)}, not JSON; send e.g. -c '${key}=${example}'`);
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`context ${key} is ${JSON.stringify(value)}; send a JSON object, e.g. ${example}`);
  return parsed as Record<string, unknown>;
}

/**
 * Reserved concurrency per function, so that a flood on one (webhooks on their open URL) cannot starve order events
 * and the sweep. Lambda refuses reservations that leave less than 100 unreserved, so the budget is checked against
 * the account's limit here (a new account's limit of 10 fits no budget: deploy with `none` or raise the quota).
 */
function concurrencyBudgetOf(value: unknown, accountLimit: AccountConcurrencyLimit): ConcurrencyBudget | null {
  const key = CONTEXT_KEYS.concurrencyBudget;
  const example = JSON.stringify(DEFAULT_CONCURRENCY_BUDGET);
  const budget: ConcurrencyBudget = { ...DEFAULT_CONCURRENCY_BUDGET };
  if (value === 'none') return null;
  const given = jsonObjectOf(value, key, example);
  for (const [name, count] of Object.entries(given ?? {})) {
    if (!(FUNCTION_ROLES as readonly string[]).includes(name)) throw new Error(`context ${key} names "${name}"; send functions among ${FUNCTION_ROLES.join(', ')}`);
    if (!Number.isInteger(count) || (count as number) < 1) throw new Error(`context ${key}: ${name} is ${JSON.stringify(count)}; send a whole number of at least 1`);
    budget[name as keyof ConcurrencyBudget] = count as number;
  }
  const reserved = Object.values(budget).reduce((a, b) => a + b, 0);
  if (reserved + MIN_UNRESERVED_CONCURRENCY > accountLimit.value) {
    const room = accountLimit.value - MIN_UNRESERVED_CONCURRENCY;
    throw new Error(
      `context ${key} reserves ${reserved} concurrent executions, and Lambda keeps ${MIN_UNRESERVED_CONCURRENCY} unreserved, ` +
      `but the account's limit is ${accountLimit.value} (${accountLimit.from}). Ask AWS to raise the quota, ` +
      (room > 0 ? `send a budget reserving at most ${room} in all (-c ${key}='{...}'), ` : '') +
      `or deploy with -c ${key}=none (no reservations: a flood on the open webhook URL is then bounded only by the account's limit)`,
    );
  }
  return budget;
}

function retentionOf(value: unknown): RetentionDays {
  const key = CONTEXT_KEYS.retentionDays;
  const retention: RetentionDays = { ...DEFAULT_RETENTION_DAYS };
  for (const [kind, days] of Object.entries(jsonObjectOf(value, key, JSON.stringify(DEFAULT_RETENTION_DAYS)) ?? {})) {
    if (!(RETENTION_KINDS as readonly string[]).includes(kind)) {
      throw new Error(`context ${key} names "${kind}"; send kinds among ${RETENTION_KINDS.join(', ')} (settings and policy history and the audit log are kept for ever)`);
    }
    if (!Number.isInteger(days) || (days as number) < 1) throw new Error(`context ${key}: ${kind} is ${JSON.stringify(days)}; send a whole number of days, at least 1`);
    retention[kind as keyof RetentionDays] = days as number;
  }
  return retention;
}

/** A region AWS has (aws-cdk-lib's region table), so that a typo fails the synth rather than the deploy. */
function regionOf(region: string): string {
  if (RegionInfo.regions.some((r) => r.name === region)) return region;
  throw new Error(`context ${CONTEXT_KEYS.region} is ${JSON.stringify(region)}, not an AWS region; send one such as ${DEFAULT_REGION} (the gateway's, nearest India), e.g. -c ${CONTEXT_KEYS.region}=${DEFAULT_REGION}`);
}

/** JSON list or comma-separated text of IAM role or user ARNs and account ids. */
function producersOf(value: unknown): string[] {
  const key = CONTEXT_KEYS.eventProducers;
  if (value === undefined || value === null || value === '') return [];
  let items: unknown = value;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) {
      try {
        items = JSON.parse(trimmed);
      } catch {
        throw new Error(`context ${key} is ${JSON.stringify(value)}, not a JSON list; send e.g. -c '${key}=["arn:aws:iam::123456789012:role/marketplace-backend"]'`);
      }
    } else {
      items = trimmed.split(',').map((p) => p.trim()).filter((p) => p !== '');
    }
  }
  if (!Array.isArray(items) || items.some((p) => typeof p !== 'string')) {
    throw new Error(`context ${key} is ${JSON.stringify(value)}; send a list of IAM role ARNs or account ids, e.g. -c '${key}=["arn:aws:iam::123456789012:role/marketplace-backend"]'`);
  }
  return [...new Set((items as string[]).map((p) => checkProducer(p.trim(), key)))];
}
