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
import type { Settings, VendorPolicy, VendorRelease, VersionedSettings } from '../../domain/types';
import { ConflictError } from '../errors';
import { eachInFlight } from '../in-flight';
import { requireId } from '../ids';
import { policyChangeOf, type ApplyTo, type PolicyChange } from './policy-change';
import { knownVendorPages } from '../known-vendors';
import { PREVIEW_INLINE_RELEASES, type Dependencies, type StoredJob, type StoredPreview } from '../ports';
import { startJob } from '../start-job';
import { openReleasesOfVendor } from '../replan-vendor-releases';
import { storedInstant } from '../release-store';
import { inZone } from '../response-times';

/** How long a previewId can be required by a PUT. */
export const PREVIEW_LIFETIME_MINUTES = 60;
/**
 * Releases listed in an answer by default and at most (`?limit=`); the day totals always cover every release. At
 * most 5,000 of up to about 600 bytes each (ids of 64 characters): 3 MB, half of Lambda's 6 MB answer.
 */
export const LISTED_RELEASES = { default: 1000, max: 5_000 };
/**
 * Cap stops listed in an answer at most (no more than its `limit` either), and in a job's result (kept on the job's
 * item, DynamoDB's 400 KB with the 500 releases listed); `capStoppedCount` counts every one.
 */
export const CAP_STOPS_LISTED = { answer: 1000, job: 100 };
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
   * (`exposure_cap`) until exposure falls or max eligibility comes, each with the figures. Empty without a cap. The
   * first of them in send order (at most the answer's limit and CAP_STOPS_LISTED); the count covers every one.
   */
  capStopped: CapStop[];
  capStoppedCount: number;
  /** Cap stops left out of `capStopped` by the bound. */
  capStoppedOmitted: number;
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
 * Whether the vendors' open releases are more than `max`: each vendor counted by the index at a cost bounded by what
 * is left of `max` (openCountUpTo), its partitions at once, VENDOR_PAGE vendors at once; never a read of every
 * release. More vendors than INLINE_VENDORS count as more (a job), so that the request stays O(1) whatever the number
 * of vendors too.
 */
async function coversMoreThan(deps: Dependencies, vendorIds: AsyncIterable<string[]> | string[][], max: number): Promise<boolean> {
  let left = max;
  let vendors = 0;
  for await (const page of vendorIds) {
    vendors += page.length;
    if (vendors > INLINE_VENDORS) return true;
    for (const count of await Promise.all(page.map((vendorId) => deps.reads.openCountUpTo(vendorId, left)))) left -= count;
    if (left < 0) return true;
  }
  return false;
}

/** Vendors a settings preview covers in its answer at most; with more it is a job. */
const INLINE_VENDORS = 200;

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
  if (job.kind === 'policy_preview') return previewPolicy(deps, String(job.params.vendorId), job.params.body, limit, CAP_STOPS_LISTED.job);
  return previewSettings(deps, job.params.body, limit);
}

/**
 * POST /vendors/{vendorId}/policy/preview: every unsent release of the vendor as it is and as it would be planned
 * under the candidate policy (what `applyTo: "open_orders"` does; with `new_orders` they keep their version and only
 * new orders take the candidate). Changes nothing but the stored preview.
 */
export async function previewPolicy(deps: Dependencies, vendorId: string, body: unknown, limit: number = LISTED_RELEASES.default, capStopsListed = CAP_STOPS_LISTED.answer): Promise<PolicyPreviewAnswer> {
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
  const capListed = Math.min(limit, capStopsListed);
  const capStopped = await capStoppedOf(deps, candidate, previewed, facts, settings, capListed);
  return {
    previewId: stored.previewId,
    expiresAt: inZone(stored.expiresAt, settings.timezone),
    vendorId,
    fromVersion: state.fromVersion,
    applyTo: change.applyTo,
    capStopped: capStopped.stops,
    capStoppedCount: capStopped.count,
    capStoppedOmitted: capStopped.count - capStopped.stops.length,
    ...answerOf(previewed, previewed, limit, both),
  };
}

/** The candidate's early sends, in time order against the vendor's exposure now: those the candidate's cap would stop. */
async function capStoppedOf(deps: Dependencies, candidate: VendorPolicy, previewed: ReleasePreview[], facts: VendorFacts[], settings: Settings, listed: number): Promise<{ stops: CapStop[]; count: number }> {
  if (!candidate.maxExposure || Object.keys(candidate.maxExposure).length === 0) return { stops: [], count: 0 };
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
  return capStops(planned, entries, (currency) => capOf(candidate, currency), settings.timezone, listed);
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
 * showed still holds: its digest computed again now. The digest always covers the versions, the hold, the change and
 * the ends of the vendor's open index; when the preview covered at most STRICT_PREVIEW_RELEASES releases it covers each
 * of them too (id and version), so a delivery, dispute, send or new order since the preview makes it stale. Above
 * that the PUT checks the ends only, in a few reads whatever the number of releases (the PUT stays bounded; the apply
 * job plans each release from what is stored when it gets there, as it would without a previewId).
 */
async function requirePreviewHolds(deps: Dependencies, previewId: string, scope: string, digestNow: () => Promise<string>): Promise<void> {
  const preview = await deps.previews.get(previewId);
  const stale = (why: string) => new ConflictError('preview_stale', `previewId ${previewId}: ${why}; preview the change again and send its new previewId`);
  if (!preview) throw stale('no such preview (never made, or expired and cleared)');
  if (preview.scope !== scope) throw stale(`it previewed ${preview.scope}, not ${scope}`);
  if (preview.expiresAt.ms < deps.clock.now().ms) throw stale(`it expired at ${preview.expiresAt}`);
  if (preview.digest !== await digestNow()) {
    throw stale('what it showed no longer holds (an order of the vendor came or settled, the policy, hold or settings changed, or this body differs from the previewed one)');
  }
}

/** For PUT /vendors/{vendorId}/policy with `previewId`. */
export async function requirePolicyPreview(deps: Dependencies, vendorId: string, change: PolicyChange): Promise<void> {
  if (change.previewId === null) return;
  const scope = policyScope(vendorId);
  await requirePreviewHolds(deps, change.previewId, scope, async () => {
    const [ends, config, covered] = await Promise.all([deps.reads.openEnds(vendorId), deps.config.forPlanning([vendorId]), strictlyCovered(deps, [[vendorId]])]);
    return policyDigest(vendorId, change, config, ends, covered);
  });
}

/** For PUT /settings with `previewId`: the body (with its change keys) is the candidate the preview must have shown. */
export async function requireSettingsPreview(deps: Dependencies, previewId: string, body: unknown): Promise<void> {
  await requirePreviewHolds(deps, previewId, 'settings', async () => {
    const [current, covered] = await Promise.all([deps.settings.get(), strictlyCovered(deps, knownVendorPages(deps, VENDOR_PAGE))]);
    return settingsDigest(current, settingsCandidate(current, body), covered);
  });
}

const policyScope = (vendorId: string): string => `policy:${vendorId}`;

type PlanningConfig = Awaited<ReturnType<Dependencies['config']['forPlanning']>>;

/**
 * A preview over at most this many releases is checked release by release by the PUT that names it; above, by the
 * versions and the ends of the open index only (README "Previews at size").
 */
export const STRICT_PREVIEW_RELEASES = 1000;

/**
 * The releases a preview (or the PUT checking it) covers, when there are at most STRICT_PREVIEW_RELEASES of them
 * (counted first, in bounded reads); null above.
 */
async function strictlyCovered(deps: Dependencies, vendorIds: AsyncIterable<string[]> | string[][]): Promise<VendorRelease[] | null> {
  // Vendor ids are gathered only up to the vendors a strict check covers: past them the answer is null whatever the
  // marketplace's size (coversMoreThan says the same), so a PUT never lists every vendor.
  const pages: string[][] = [];
  let vendors = 0;
  for await (const page of vendorIds) {
    vendors += page.length;
    if (vendors > INLINE_VENDORS) return null;
    pages.push(page);
  }
  if (!(await coversAtMostStrict(deps, pages))) return null;
  const releases: VendorRelease[] = [];
  for (const page of pages) for (const open of await Promise.all(page.map((vendorId) => openReleasesOfVendor(deps, vendorId)))) releases.push(...open);
  return releases;
}

/** Whether the vendors' open releases are few enough to be checked one by one (the same count on both sides). */
const coversAtMostStrict = async (deps: Dependencies, vendorIds: AsyncIterable<string[]> | string[][]): Promise<boolean> =>
  !(await coversMoreThan(deps, vendorIds, strictMax(deps)));

const strictMax = (deps: Dependencies): number => deps.previewStrictReleases ?? STRICT_PREVIEW_RELEASES;

/** The covered releases' mark in a digest: each release's id and version, or "more than" when not covered one by one. */
function releasesMark(ends: string, covered: readonly VendorRelease[] | null): string {
  if (covered === null) return `${ends}\nmore than the strict bound`;
  return `${ends}\n${covered.map((r) => `${r.orderId}/${r.vendorId}@${r.version}`).sort().join('\n')}`;
}

function policyDigest(vendorId: string, change: PolicyChange, config: PlanningConfig, ends: string, covered: readonly VendorRelease[] | null): string {
  const hold = config.holds.get(vendorId) ?? null;
  return previewDigest({
    scope: policyScope(vendorId),
    releases: releasesMark(ends, covered),
    versions: { policy: config.policies.get(vendorId)?.version ?? 0, settings: config.settings.version, hold: hold ? `${hold.source ?? 'finance'}@${hold.at}` : 'none' },
    change: { scheduleOption: change.policy.scheduleOption, release: change.policy.release, ...(change.policy.maxExposure ? { maxExposure: change.policy.maxExposure } : {}) },
  });
}

const settingsDigest = (current: VersionedSettings, candidate: Settings, covered: readonly VendorRelease[] | null): string =>
  previewDigest({ scope: 'settings', releases: releasesMark('', covered), versions: { settings: current.version }, change: candidate });

/**
 * What a policy preview covers. The ends of the open index are read before the releases: an order that comes between
 * the two reads makes the preview stale at once (the PUT reads other ends), never one that holds without it.
 */
async function policyPreviewState(deps: Dependencies, vendorId: string, change: PolicyChange) {
  const ends = await deps.reads.openEnds(vendorId);
  const [config, releases, strict] = await Promise.all([
    deps.config.forPlanning([vendorId]), openReleasesOfVendor(deps, vendorId), coversAtMostStrict(deps, [[vendorId]]),
  ]);
  const covered = strict ? releases : null;
  const { settings } = config;
  const hold = config.holds.get(vendorId) ?? null;
  const fromVersion = config.policies.get(vendorId)?.version ?? 0;
  const scope = policyScope(vendorId);
  return { scope, fromVersion, settings, hold, releases, digest: policyDigest(vendorId, change, config, ends, covered) };
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
  const [releases, strict] = await Promise.all([unsentReleasesOfAll(deps), coversAtMostStrict(deps, knownVendorPages(deps, VENDOR_PAGE))]);
  const covered = strict ? releases : null;
  return { current, candidate, releases, digest: settingsDigest(current, candidate, covered) };
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

