/** The EMI, cardless and pay-later catalogue (interface sections 2.6 to 2.8 and 8): loaded, validated and indexed by code. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';

/** Tenures the interface allows (2.7, 8.1). */
const ALLOWED_TENURES: readonly number[] = [3, 6, 9, 12, 14, 18, 24, 36];

export type EmiType = 'Standard' | 'No Cost';
export type CardType = 'Credit' | 'Debit' | 'Cardless';

export interface EmiPlan {
  tenure: number;
  /** Bound on the order amount, decimal text. */
  minAmount: string;
  annualRate: string;
  type: EmiType;
}

/** One row of 8.1, 8.2 or 8.3: an issuer (or cardless provider) with its plans. */
export interface EmiIssuer {
  label: string;
  code: string;
  cardType: CardType;
  /** null: no maximum ("-" / "none" in the tables). */
  maxAmount: string | null;
  plans: EmiPlan[];
  /** Debit EMI only: whether the issuer takes the OTP through the authenticate endpoint (8.2). */
  nativeOtp: boolean;
}

export interface CardlessProvider {
  label: string;
  code: string;
  /** null: not shown (PROV-C). */
  minAmount: string | null;
}

export interface PayLaterProvider {
  label: string;
  code: string;
  /** PL-4's rule (2.6): a new customer is redirected, a repeat customer gets the OTP (post) flow. */
  newCustomerRedirect: boolean;
}

export interface Catalogue {
  source: string;
  codes: Record<string, string>;
  labels: Record<string, string>;
  credit: Map<string, EmiIssuer>;
  debit: Map<string, EmiIssuer>;
  /** Cardless plans of 8.3, keyed by provider code. */
  cardlessPlans: Map<string, EmiIssuer>;
  cardlessProviders: Map<string, CardlessProvider>;
  payLater: Map<string, PayLaterProvider>;
}

/** A catalogue file that does not have the expected shape; the message names the file, the path and what to write. */
export class CatalogueError extends Error {}

const SHIPPED = join(__dirname, 'catalogue.json');
const DECIMAL = /^\d+(\.\d+)?$/;

type Json = Record<string, unknown>;

/** Reads the shipped catalogue, or the file named by SANDBOX_CATALOGUE when set. */
export function loadCatalogue(env: NodeJS.ProcessEnv = process.env): Catalogue {
  const path = env.SANDBOX_CATALOGUE && env.SANDBOX_CATALOGUE.trim() !== '' ? env.SANDBOX_CATALOGUE : SHIPPED;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CatalogueError(`catalogue ${path}: cannot be read (${reason}). Set SANDBOX_CATALOGUE to a readable JSON file or unset it to use the shipped one`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CatalogueError(`catalogue ${path}: not valid JSON (${reason})`);
  }
  return parseCatalogue(parsed, path);
}

/** Validates a parsed catalogue document and indexes it; every error names the path inside the document. */
function parseCatalogue(doc: unknown, source: string): Catalogue {
  const fail = (at: string, what: string, got: unknown): never => {
    throw new CatalogueError(`catalogue ${source}: ${at}: ${what}; found ${JSON.stringify(got)}`);
  };
  const object = (v: unknown, at: string): Json =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : fail(at, 'must be an object', v);
  const array = (v: unknown, at: string): unknown[] => (Array.isArray(v) ? v : fail(at, 'must be an array', v));
  const amount = (v: unknown, at: string): string =>
    typeof v === 'string' && DECIMAL.test(v) ? v : fail(at, 'must be decimal text such as "2500" or "11.88"', v);
  const amountOrNull = (v: unknown, at: string): string | null => (v === null ? null : amount(v, at));

  const root = object(doc, '(root)');
  const codesJson = object(root.codes, 'codes');
  const codes: Record<string, string> = {};
  for (const [label, code] of Object.entries(codesJson)) {
    if (typeof code !== 'string' || code.trim() === '' || code !== code.toLowerCase()) {
      fail(`codes.${label}`, 'must be a non-empty lowercase code string', code);
    }
    codes[label] = code as string;
  }
  const labels: Record<string, string> = {};
  if (root.labels !== undefined) {
    for (const [label, text] of Object.entries(object(root.labels, 'labels'))) {
      labels[label] = typeof text === 'string' ? text : fail(`labels.${label}`, 'must be a string', text);
    }
  }
  const codeOf = (label: unknown, at: string): string => {
    if (typeof label !== 'string' || !(label in codes)) fail(at, `must be a label listed in "codes" (${Object.keys(codes).join(', ')})`, label);
    return codes[label as string];
  };
  const unique = <T extends { code: string; label: string }>(items: T[], at: string): Map<string, T> => {
    const map = new Map<string, T>();
    for (const item of items) {
      const clash = map.get(item.code);
      if (clash) fail(at, `labels ${clash.label} and ${item.label} have the same code "${item.code}" in one family`, item.label);
      map.set(item.code, item);
    }
    return map;
  };

  const issuers = (key: string, cardType: CardType, labelKey: 'issuer' | 'provider'): Map<string, EmiIssuer> => {
    const rows = array(root[key], key).map((rowJson, i): EmiIssuer => {
      const at = `${key}[${i}]`;
      const row = object(rowJson, at);
      const label = row[labelKey] as string;
      const code = codeOf(label, `${at}.${labelKey}`);
      const maxAmount = amountOrNull(row.maxAmount, `${at}.maxAmount`);
      const seen = new Set<number>();
      const plans = array(row.plans, `${at}.plans`).map((planJson, j): EmiPlan => {
        const pat = `${at}.plans[${j}]`;
        const plan = object(planJson, pat);
        const tenure = plan.tenure;
        if (typeof tenure !== 'number' || !ALLOWED_TENURES.includes(tenure)) fail(`${pat}.tenure`, `must be one of ${ALLOWED_TENURES.join(', ')}`, tenure);
        if (seen.has(tenure as number)) fail(`${pat}.tenure`, 'appears twice for this issuer', tenure);
        seen.add(tenure as number);
        const minAmount = amount(plan.minAmount, `${pat}.minAmount`);
        if (maxAmount !== null && new Decimal(minAmount).gt(maxAmount)) fail(`${pat}.minAmount`, `must not exceed the issuer's maxAmount ${maxAmount}`, minAmount);
        const type = plan.type === undefined ? 'Standard' : plan.type;
        if (type !== 'Standard' && type !== 'No Cost') fail(`${pat}.type`, 'must be "Standard" or "No Cost"', type);
        return { tenure: tenure as number, minAmount, annualRate: amount(plan.annualRate, `${pat}.annualRate`), type: type as EmiType };
      });
      if (plans.length === 0) fail(`${at}.plans`, 'must list at least one plan', row.plans);
      plans.sort((a, b) => a.tenure - b.tenure);
      const nativeOtp = row.nativeOtp === undefined ? true : row.nativeOtp;
      if (typeof nativeOtp !== 'boolean') fail(`${at}.nativeOtp`, 'must be true or false', nativeOtp);
      return { label, code, cardType, maxAmount, plans, nativeOtp: nativeOtp as boolean };
    });
    return unique(rows, key);
  };

  const credit = issuers('creditEmi', 'Credit', 'issuer');
  const debit = issuers('debitEmi', 'Debit', 'issuer');
  const cardlessPlans = issuers('cardlessEmi', 'Cardless', 'provider');
  const cardlessProviders = unique(
    array(root.cardlessProviders, 'cardlessProviders').map((json, i): CardlessProvider => {
      const row = object(json, `cardlessProviders[${i}]`);
      const label = row.provider as string;
      return { label, code: codeOf(label, `cardlessProviders[${i}].provider`), minAmount: amountOrNull(row.minAmount, `cardlessProviders[${i}].minAmount`) };
    }),
    'cardlessProviders',
  );
  for (const provider of cardlessProviders.values()) {
    if (cardlessPlans.has(provider.code)) fail('cardlessProviders', `provider ${provider.label} also appears in cardlessEmi; list it in one of them`, provider.label);
  }
  const payLater = unique(
    array(root.payLater, 'payLater').map((json, i): PayLaterProvider => {
      const row = object(json, `payLater[${i}]`);
      const label = row.provider as string;
      const redirect = row.newCustomerRedirect === undefined ? false : row.newCustomerRedirect;
      if (typeof redirect !== 'boolean') fail(`payLater[${i}].newCustomerRedirect`, 'must be true or false', redirect);
      return { label, code: codeOf(label, `payLater[${i}].provider`), newCustomerRedirect: redirect as boolean };
    }),
    'payLater',
  );
  return { source, codes, labels, credit, debit, cardlessPlans, cardlessProviders, payLater };
}

/** The plan of an issuer for a tenure, if offered. */
export function planFor(issuer: EmiIssuer, tenure: number): EmiPlan | undefined {
  return issuer.plans.find((plan) => plan.tenure === tenure);
}

/** Why an amount is outside a plan's bounds, or null when it is within them. */
export function amountOutsidePlan(issuer: EmiIssuer, plan: EmiPlan, amount: Decimal): string | null {
  if (amount.lt(plan.minAmount)) return `minimum order amount ${plan.minAmount} for tenure ${plan.tenure} with ${issuer.label} (${issuer.cardType} EMI)`;
  if (issuer.maxAmount !== null && amount.gt(issuer.maxAmount)) return `maximum order amount ${issuer.maxAmount} for ${issuer.label} (${issuer.cardType} EMI)`;
  return null;
}

/** Plans of an issuer whose bounds admit the amount. */
export function plansForAmount(issuer: EmiIssuer, amount: Decimal): EmiPlan[] {
  return issuer.plans.filter((plan) => amountOutsidePlan(issuer, plan, amount) === null);
}
