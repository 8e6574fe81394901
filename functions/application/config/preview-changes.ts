/** Use cases: preview a policy or settings change over the unsent releases it would move, and require a preview to hold. */
import { randomUUID } from 'node:crypto';
import { ValidationError, isRecord } from '../../domain/errors';
import {
  factsOfUnsentRelease, presentPreview, previewDigest, previewReleases, totalsPerDay, type DayTotals, type PreviewedRelease,
  type ReleasePreview,
} from '../../domain/preview';
import { vendorFacts, type VendorFacts } from '../../domain/release';
import { SETTINGS_CHANGE_KEYS, validateSettings } from '../../domain/settings';
import { MINUTE_MS } from '../../domain/instant';
import { capOf, capStops, isEarly, riskClosesAtMs, type CapStop, type PlannedEarlyRelease } from '../../domain/exposure';
import type { Settings, VendorPolicy, VendorRelease } from '../../domain/types';
import { ConflictError } from '../errors';
import { eachInFlight } from '../in-flight';
import { requireId } from '../ids';
import { policyChangeOf, type ApplyTo, type PolicyChange } from './policy-change';
import { knownVendorPages } from '../reads/read-vendors';
import { PREVIEW_INLINE_RELEASES, type Dependencies, type StoredJob, type StoredPreview } from '../ports';
import { startJob } from '../jobs/start-job';
import { openReleasesOfVendor } from '../releases/replan-vendor-releases';
import { storedInstant } from '../releases/release-writes';
import { inZone } from '../response-times';

/** How long a previewId can be required by a PUT. */
export const PREVIEW_LIFETIME_MINUTES = 60;
/** Releases listed in an answer by default and at most (`?limit=`); the day totals always cover every release. */
export const LISTED_RELEASES = { default: 1000, max: 10_000 };
/** Orders whose events are read at once when a candidate needs delivery times. */
const EVENT_READS_IN_FLIGHT = 16;

export interface PreviewAnswer {
  previewId: string;
  expiresAt: string;
  /** How many unsent releases the preview covered, and how many of them the candidate moves. */
  covered: number;
  moved: number;
  /** Of those, how many the candidate drops (their order was cancelled): neither moved nor landing anywhere. */
  dropped: number;
  /** Releases left out of `releases` by the limit (the day totals include them). */
  omitted: number;
  releases: PreviewedRelease[];
  perDay: DayTotals[];
}

export interface PolicyPreviewAnswer extends PreviewAnswer {
  vendorId: string;
  fromVersion: number;
  applyTo: ApplyTo;
  /**
   * The candidate's early releases that the policy's maxExposure would stop (contract 6.4): they would wait
   * (`exposure_cap`) until exposure falls or max eligibility comes, each with the figures. Empty without a cap.
   */
  capStopped: CapStop[];
}

export interface SettingsPreviewAnswer extends PreviewAnswer {
  fromVersion: number;
  /** Releases whose current target the gateway would refuse under the candidate settings. */
  refused: number;
}

/** Vendors whose open releases are read at once by a settings preview. */
const VENDOR_PAGE = 50;

/** Every unsent release of every vendor Holdback knows (a settings change concerns them all). */
async function unsentReleasesOfAll(deps: Dependencies): Promise<VendorRelease[]> {
  const releases: VendorRelease[] = [];
  for await (const page of knownVendorPages(deps, VENDOR_PAGE)) {
    for (const open of await Promise.all(page.map((vendorId) => openReleasesOfVendor(deps, vendorId)))) releases.push(...open);
  }
  return releases;
}

/** A preview in its answer, or (over more open releases than one answer carries) the job whose result it will be. */
export type PreviewOrJob<T> = { preview: T; job: null } | { preview: null; job: StoredJob };
/** Releases a job's result lists at most: the result is kept on the job's item (DynamoDB's 400 KB an item). */
export const JOB_PREVIEW_LISTED = 500;

/**
 * Whether the vendors' open releases are more than `max`: one index page of at most `max + 1` entries a vendor, until
 * the count passes `max` (never a read of every release).
 */
async function coversMoreThan(deps: Dependencies, vendorIds: AsyncIterable<string[]> | string[][], max: number): Promise<boolean> {
  let count = 0;
  for await (const page of vendorIds) {
    for (const vendorId of page) {
      count += (await deps.reads.openOrderIds(vendorId, null, max + 1 - count)).orderIds.length;
      if (count > max) return true;
    }
  }
  return false;
}

const inlineMax = (deps: Dependencies): number => deps.previewInlineReleases ?? PREVIEW_INLINE_RELEASES;
const actorOf = (body: unknown): string => (isRecord(body) && typeof body.actor === 'string' && body.actor.trim() ? body.actor.trim().slice(0, 200) : 'preview');

/**
 * POST /vendors/{vendorId}/policy/preview at any size: the body is checked first (a 400 before any job), then the
 * preview is answered, or started as a job when the vendor has more open releases than one answer carries.
 */
export async function previewPolicyOrJob(deps: Dependencies, vendorId: string, body: unknown, limit: number = LISTED_RELEASES.default): Promise<PreviewOrJob<PolicyPreviewAnswer>> {
  requireId(vendorId, 'vendorId');
  policyChangeOf(isRecord(body) ? { actor: 'preview', reason: 'preview', ...body } : body);
  const listed = limit;
  if (!(await coversMoreThan(deps, [[vendorId]], inlineMax(deps)))) return { preview: await previewPolicy(deps, vendorId, body, limit), job: null };
  const params = { vendorId, body, limit: Math.min(listed, JOB_PREVIEW_LISTED) };
  return { preview: null, job: await startJob(deps, { kind: 'policy_preview', actor: actorOf(body), params, first: { step: 'preview' } }) };
}

/** POST /settings/preview at any size, as previewPolicyOrJob: over every vendor's open releases. */
export async function previewSettingsOrJob(deps: Dependencies, body: unknown, limit: number = LISTED_RELEASES.default): Promise<PreviewOrJob<SettingsPreviewAnswer>> {
  const listed = limit;
  settingsCandidate(await deps.settings.get(), body);
  if (!(await coversMoreThan(deps, knownVendorPages(deps, VENDOR_PAGE), inlineMax(deps)))) return { preview: await previewSettings(deps, body, limit), job: null };
  const params = { body, limit: Math.min(listed, JOB_PREVIEW_LISTED) };
  return { preview: null, job: await startJob(deps, { kind: 'settings_preview', actor: actorOf(body), params, first: { step: 'preview' } }) };
}

/** The job of a preview too large for one answer: the same preview (stored alike, so its previewId works with the PUT). */
export async function previewOfJob(deps: Dependencies, job: StoredJob): Promise<PreviewAnswer> {
  const limit = Number(job.params.limit ?? JOB_PREVIEW_LISTED);
  if (job.kind === 'policy_preview') return previewPolicy(deps, String(job.params.vendorId), job.params.body, limit);
  return previewSettings(deps, job.params.body, limit);
}

/**
 * POST /vendors/{vendorId}/policy/preview: every unsent release of the vendor as it is and as it would be planned
 * under the candidate policy (what `applyTo: "open_orders"` does; with `new_orders` they keep their version and only
 * new orders take the candidate). Changes nothing but the stored preview.
 */
export async function previewPolicy(deps: Dependencies, vendorId: string, body: unknown, limit: number = LISTED_RELEASES.default): Promise<PolicyPreviewAnswer> {
  requireId(vendorId, 'vendorId');
  // The body of the PUT it previews; who and why may wait for the PUT (a preview records no change).
  const change = policyChangeOf(isRecord(body) ? { actor: 'preview', reason: 'preview', ...body } : body);
  const state = await policyPreviewState(deps, vendorId, change);
  const { settings, releases, hold } = state;
  const candidate: VendorPolicy = { vendorId, version: state.fromVersion + 1, ...change.policy, at: null };
  // An AT_MAX release of an at_max rule shows nothing of its order's story (at_max ignores cancellations and
  // disputes), so its events are read, as are every release's when the candidate rule needs the delivery time.
  const facts = await factsOf(deps, releases, (r) => candidate.release.kind === 'after_delivery' || r.state === 'AT_MAX');
  const both = { current: settings, candidate: settings };
  const previewed = previewReleases(releases, (_, i) => facts[i], () => hold, { policy: candidate, settings: both, now: deps.clock.now() });
  const stored = await remember(deps, state.scope, state.digest);
  const capStopped = await capStoppedOf(deps, candidate, previewed, facts, settings);
  return {
    previewId: stored.previewId,
    expiresAt: inZone(stored.expiresAt, settings.timezone),
    vendorId,
    fromVersion: state.fromVersion,
    applyTo: change.applyTo,
    capStopped,
    ...answerOf(previewed, previewed, limit, both),
  };
}

/** The candidate's early sends, in time order against the vendor's exposure now: those the candidate's cap would stop. */
async function capStoppedOf(deps: Dependencies, candidate: VendorPolicy, previewed: ReleasePreview[], facts: VendorFacts[], settings: Settings): Promise<CapStop[]> {
  if (!candidate.maxExposure || Object.keys(candidate.maxExposure).length === 0) return [];
  const now = deps.clock.now();
  const planned: PlannedEarlyRelease[] = [];
  previewed.forEach((p, i) => {
    const { release } = p;
    if (p.dropped || p.candidate.targetMs === null || release.currency === undefined) return;
    const sendMs = Math.max(p.candidate.targetMs, now.ms);
    if (!isEarly(sendMs, release.maxEligibility)) return;
    const closesMs = riskClosesAtMs({ transactionTime: release.transactionTime, maxEligibility: release.maxEligibility, deliveredAt: facts[i]?.deliveredAt ?? null, settings });
    if (closesMs > sendMs) planned.push({ orderId: release.orderId, vendorId: release.vendorId, currency: release.currency, amount: release.amount, sendMs, closesMs });
  });
  const entries = await deps.exposure.open(candidate.vendorId, storedInstant(now));
  return capStops(planned, entries, (currency) => capOf(candidate, currency), settings.timezone);
}

/**
 * POST /settings/preview: a full or partial settings body over the settings in force; every unsent release the
 * candidate would move (its settlement calendar or its window), plus those whose current target the gateway would
 * refuse (a smaller Defer by Days). Each keeps its own pinned policy. Changes nothing but the stored preview.
 */
export async function previewSettings(deps: Dependencies, body: unknown, limit: number = LISTED_RELEASES.default): Promise<SettingsPreviewAnswer> {
  const state = await settingsPreviewState(deps, body);
  const { current, candidate, releases } = state;
  const [facts, { holds }] = await Promise.all([
    factsOf(deps, releases, (r) => r.rule.kind === 'after_delivery' && r.state !== 'WAITING'),
    deps.config.forPlanning([...new Set(releases.map((r) => r.vendorId))]),
  ]);
  const both = { current, candidate };
  const previewed = previewReleases(releases, (_, i) => facts[i], (r) => holds.get(r.vendorId) ?? null, { policy: null, settings: both, now: deps.clock.now() });
  const affected = previewed.filter((r) => r.moves || r.refusedPastMs !== null);
  const stored = await remember(deps, 'settings', state.digest);
  return {
    previewId: stored.previewId,
    expiresAt: inZone(stored.expiresAt, candidate.timezone),
    fromVersion: current.version,
    refused: affected.filter((r) => r.refusedPastMs !== null).length,
    ...answerOf(previewed, affected, limit, both),
  };
}

/**
 * Throws 409 `preview_stale` unless the preview exists, is unexpired, was made for this change's scope, and what it
 * showed still holds (the digest of the releases and versions it covered, computed again now).
 */
async function requirePreviewHolds(deps: Dependencies, previewId: string, scope: string, digestNow: () => Promise<string>): Promise<void> {
  const preview = await deps.previews.get(previewId);
  const stale = (why: string) => new ConflictError('preview_stale', `previewId ${previewId}: ${why}; preview the change again and send its new previewId`);
  if (!preview) throw stale('no such preview (never made, or expired and cleared)');
  if (preview.scope !== scope) throw stale(`it previewed ${preview.scope}, not ${scope}`);
  if (Date.parse(preview.expiresAt) < deps.clock.now().ms) throw stale(`it expired at ${preview.expiresAt}`);
  if (preview.digest !== await digestNow()) {
    throw stale('what it showed no longer holds (a release it covered changed, the policy or settings changed, or this body differs from the previewed one)');
  }
}

/** For PUT /vendors/{vendorId}/policy with `previewId`. */
export async function requirePolicyPreview(deps: Dependencies, vendorId: string, change: PolicyChange): Promise<void> {
  if (change.previewId === null) return;
  const scope = policyScope(vendorId);
  await requirePreviewHolds(deps, change.previewId, scope, async () => (await policyPreviewState(deps, vendorId, change)).digest);
}

/** For PUT /settings with `previewId`: the body (with its change keys) is the candidate the preview must have shown. */
export async function requireSettingsPreview(deps: Dependencies, previewId: string, body: unknown): Promise<void> {
  await requirePreviewHolds(deps, previewId, 'settings', async () => (await settingsPreviewState(deps, body)).digest);
}

const policyScope = (vendorId: string): string => `policy:${vendorId}`;

/** What a policy preview covers, read once for the preview and again for a PUT that requires it. */
async function policyPreviewState(deps: Dependencies, vendorId: string, change: PolicyChange) {
  const [config, releases] = await Promise.all([deps.config.forPlanning([vendorId]), openReleasesOfVendor(deps, vendorId)]);
  const { settings } = config;
  const hold = config.holds.get(vendorId) ?? null;
  const fromVersion = config.policies.get(vendorId)?.version ?? 0;
  const scope = policyScope(vendorId);
  const digest = previewDigest({
    scope, releases, versions: { policy: fromVersion, settings: settings.version },
    change: { scheduleOption: change.policy.scheduleOption, release: change.policy.release, ...(change.policy.maxExposure ? { maxExposure: change.policy.maxExposure } : {}) },
  });
  return { scope, fromVersion, settings, hold, releases, digest };
}

/** The candidate settings of a preview's body over the settings in force (a ValidationError naming each bad field). */
function settingsCandidate(current: Settings, body: unknown): Settings {
  if (!isRecord(body)) {
    throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: 'a JSON object with the settings to preview, e.g. {"deferByDays": 10}' }]);
  }
  const settingsPart = Object.fromEntries(Object.entries(body).filter(([k]) => !SETTINGS_CHANGE_KEYS.includes(k)));
  return validateSettings(settingsPart, current);
}

async function settingsPreviewState(deps: Dependencies, body: unknown) {
  const current = await deps.settings.get();
  const candidate = settingsCandidate(current, body);
  const releases = await unsentReleasesOfAll(deps);
  const digest = previewDigest({ scope: 'settings', releases, versions: { settings: current.version }, change: candidate });
  return { current, candidate, releases, digest };
}

/**
 * The facts each release is planned from. Most follow from the stored release; the delivery time is on the order's
 * events only, so those are read (a few at a time) for the releases whose candidate rule needs it.
 */
async function factsOf(deps: Dependencies, releases: VendorRelease[], needsEvents: (release: VendorRelease) => boolean): Promise<VendorFacts[]> {
  const facts = releases.map(factsOfUnsentRelease);
  const toRead = releases.map((_, i) => i).filter((i) => needsEvents(releases[i]));
  await eachInFlight(toRead, EVENT_READS_IN_FLIGHT, async (i) => {
    const events = await deps.orders.listEvents(releases[i].orderId);
    facts[i] = vendorFacts(events.map((e) => e.event), releases[i].vendorId);
  });
  return facts;
}

async function remember(deps: Dependencies, scope: string, digest: string): Promise<StoredPreview> {
  const now = deps.clock.now();
  const preview: StoredPreview = {
    // Unguessable, so that a previewId proves someone saw this preview.
    previewId: randomUUID().replace(/-/g, ''),
    scope,
    digest,
    createdAt: storedInstant(now),
    expiresAt: storedInstant(now.plusMs(PREVIEW_LIFETIME_MINUTES * MINUTE_MS)),
  };
  await deps.previews.save(preview);
  return preview;
}

/** Counts over what the preview covered; the listed releases and the day totals over what it shows. */
function answerOf(covered: ReleasePreview[], shown: ReleasePreview[], limit: number, settings: Parameters<typeof presentPreview>[1]) {
  return {
    covered: covered.length,
    moved: covered.filter((r) => r.moves).length,
    dropped: covered.filter((r) => r.dropped).length,
    omitted: Math.max(0, shown.length - limit),
    releases: shown.slice(0, limit).map((r) => presentPreview(r, settings)),
    perDay: totalsPerDay(shown),
  };
}

