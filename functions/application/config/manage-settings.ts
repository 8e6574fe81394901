/** Use cases: read and change the merchant settings (GET and PUT /settings), each change a new version. */
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { DEFAULT_HOLD_WARNING, DEFAULT_RETRY_BUDGET, DEFAULT_RISK_WINDOW, SETTINGS_CHANGE_KEYS, validateSettings } from '../../domain/settings';
import type { Settings, VersionedSettings } from '../../domain/types';
import { VersionConflictError, type Dependencies } from '../ports';
import { inZone, type Shown } from '../response-times';
import { appendAudit, storedInstant } from '../release-store';
import { requireSettingsPreview } from './preview-changes';
import { OPEN_MONEY_READ_BOUND, requireFourEyes, vendorOpenMoney } from '../four-eyes';
import type { MovedAmount } from '../../domain/approvals';
import Decimal from '../../domain/decimal';

export async function getSettings(deps: Dependencies): Promise<SettingsView> {
  return presented(await deps.settings.get());
}

/**
 * A full or partial body merged over the settings in force (so a GET's answer can be sent back as it is).
 * `version`, when given, must be the current one (409 otherwise); `actor` and `reason` default to "api" and
 * "settings updated".
 */
export async function updateSettings(deps: Dependencies, body: Record<string, unknown>): Promise<SettingsView & { job: null }> {
  const current = await deps.settings.get();
  const input = body;
  const settingsPart = Object.fromEntries(Object.entries(input).filter(([k]) => !SETTINGS_CHANGE_KEYS.includes(k)));
  // Who, why and which preview were read by the route's schema (handlers/schema/config-bodies.ts); the version is
  // checked here, against the one in force.
  const issues: ValidationIssue[] = [];
  if (input.version !== undefined && !Number.isInteger(input.version)) {
    issues.push({ field: 'version', problem: `is ${JSON.stringify(input.version)}, not a whole number`, expected: `the version you read, ${current.version}, or leave it out` });
  }
  let settings: Settings;
  try {
    settings = validateSettings(settingsPart, baseOf(current));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError([...error.issues, ...issues]);
  }
  if (issues.length) throw new ValidationError(issues);
  if (input.version !== undefined && input.version !== current.version) {
    throw new VersionConflictError(`version: settings are at version ${current.version}, not ${String(input.version)}; GET /settings and send your change based on version ${current.version}`);
  }
  // With a previewId, the change applies only if what that preview showed (POST /settings/preview) still holds.
  if (input.previewId !== undefined) await requireSettingsPreview(deps, String(input.previewId), body);
  // Four eyes (contract 6.4): every settings change applies to the open releases at once, so what it moves is every
  // vendor's open money, read only when the rule has an amount (`above`; a rule `{}` needs no amount: null).
  if (Object.keys(settingsChanges(baseOf(current), settings)).length > 0) {
    const actor = (input.actor as string | undefined)?.trim() ?? 'api';
    await requireFourEyes(deps, {
      change: 'settingsChange',
      request: { method: 'PUT', path: '/settings', params: {}, body: { ...input, actor } },
      actor,
      reason: (input.reason as string | undefined)?.trim() ?? 'settings updated',
      moves: async () => (current.approvals?.settingsChange?.above ? everyVendorsOpenMoney(deps) : null),
      basis: { settingsVersion: current.version },
    });
  }
  const saved = await deps.settings.save(settings, {
    actor: (input.actor as string | undefined)?.trim() ?? 'api',
    reason: (input.reason as string | undefined)?.trim() ?? 'settings updated',
    at: storedInstant(deps.clock.now()),
    expectedVersion: current.version,
  });
  await appendAudit(deps, [{
    kind: 'settings_changed',
    at: saved.at,
    actor: saved.actor,
    detail: { version: saved.version, fromVersion: current.version, reason: saved.reason, changes: settingsChanges(baseOf(current), baseOf(saved)) },
  }]);
  // In force from this answer: every release function plans its claimed release under the settings read after the
  // claim (consistently), so nothing is sent under the settings this change replaced; no per-release work remains.
  return { ...presented(saved), job: null };
}

/**
 * What a settings change moves: the open releases of every vendor Holdback knows, per currency (from the open index),
 * read up to a bound (the first VENDOR_PAGE vendors, each up to its share of OPEN_MONEY_READ_BOUND): a fixed number
 * of requests however many vendors and releases there are. Past it the totals are lower bounds (`atLeast`), and the
 * change needs approval whatever the rule's amount (a control fails closed).
 */
async function everyVendorsOpenMoney(deps: Dependencies): Promise<MovedAmount[] | null> {
  const sums = new Map<string, { amount: Decimal; count: number }>();
  const { vendorIds, more } = await deps.reads.vendors(null, VENDOR_PAGE);
  const perVendor = Math.ceil(OPEN_MONEY_READ_BOUND / VENDOR_PAGE);
  const read = await Promise.all(vendorIds.map((vendorId) => vendorOpenMoney(deps, vendorId, perVendor)));
  for (const { currency, amount, count } of read.flat()) {
    const sum = sums.get(currency) ?? { amount: new Decimal(0), count: 0 };
    sums.set(currency, { amount: sum.amount.plus(amount), count: sum.count + (count ?? 0) });
  }
  const partial = more || read.flat().some((m) => m.atLeast);
  // Nothing open among those read, but more not read: no amount to show, so the rule applies as one without amount.
  if (partial && sums.size === 0) return null;
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, sum]) => ({ currency, amount: sum.amount.toFixed(2), count: sum.count, ...(partial ? { atLeast: true } : {}) }));
}

/** Vendors whose open money a settings change's amount reads at most (one page of the vendor directory). */
const VENDOR_PAGE = 25;

/** Each setting that changed, with its value before and after (what an auditor reads first). */
function settingsChanges(before: Settings, after: Settings): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after) as (keyof Settings)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = { from: before[key], to: after[key] };
  }
  return changes;
}

export async function settingsHistory(deps: Dependencies): Promise<SettingsView[]> {
  return (await deps.settings.history()).map(presented);
}

/** The settings fields alone; settings saved before `retryBudget`, `riskWindow` or `holdWarning` existed read their defaults. */
function baseOf(current: VersionedSettings): Settings {
  const { deferByDays, timezone, defaultScheduleOption, holidays, settlementDays, releaseLead, retryBudget, riskWindow, holdWarning, approvals } = current;
  return {
    deferByDays, timezone, defaultScheduleOption, holidays, settlementDays, releaseLead, retryBudget: retryBudget ?? DEFAULT_RETRY_BUDGET,
    riskWindow: riskWindow ?? DEFAULT_RISK_WINDOW, holdWarning: holdWarning ?? DEFAULT_HOLD_WARNING, approvals: approvals ?? {},
  };
}

/** The settings as an answer shows them: `at` in their own timezone. */
export type SettingsView = Shown<VersionedSettings, 'at'>;

function presented(settings: VersionedSettings): SettingsView {
  return { ...baseOf(settings), version: settings.version, actor: settings.actor, reason: settings.reason, at: inZone(settings.at, settings.timezone) };
}
