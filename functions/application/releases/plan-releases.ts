/** Use-case core: plan an order's vendor releases with the state machine from a consistent read, write, run effects. */
import {
  plan, vendorFacts, type Cause, type PlanInput, type Refusal, type Transition, type Write,
} from '../../domain/release';
import { vendorsOutsideOrder } from '../../domain/order-events';
import { defaultPolicy } from '../../domain/settings';
import type { OrderRecord, VendorRelease } from '../../domain/types';
import { ConflictError, NotFoundError } from '../errors';
import { VersionConflictError, type Dependencies, type PlanningConfig, type StoredOrder } from '../ports';
import { MAX_WRITE_ATTEMPTS, releaseKeyOf, runEffects, writeRelease } from './release-writes';

type PaidOrder = StoredOrder & { order: OrderRecord };

/** The machine's input for one vendor of an order as read. */
export function planInputOf(
  stored: PaidOrder, vendorId: string, config: PlanningConfig, cause: Cause, now: PlanInput['now'],
): PlanInput {
  const vendor = stored.order.vendors.find((v) => v.vendorId === vendorId);
  const current = stored.releases.find((r) => r.vendorId === vendorId) ?? null;
  // A release pinned to a version older than the one last applied to the vendor's open orders is planned under that one.
  const openOrders = config.openOrderPolicies?.get(vendorId) ?? null;
  const repin = current !== null && openOrders !== null && current.policyVersion < openOrders.version;
  // An event kept before the payment that names a vendor outside the order is not applied at all (never half-applied);
  // it is listed as rejected when the payment arrives.
  const vendorIds = stored.order.vendors.map((v) => v.vendorId);
  const events = stored.events.map((e) => e.event).filter((event) => vendorsOutsideOrder(event, vendorIds).length === 0);
  return {
    order: stored.order,
    vendorId,
    amount: vendor?.amount ?? current?.amount ?? '0.00',
    policy: (repin && openOrders) || (config.policies.get(vendorId) ?? defaultPolicy(vendorId, config.settings)),
    settings: config.settings,
    facts: vendorFacts(events, vendorId),
    hold: config.holds.get(vendorId) ?? null,
    now,
    current,
    keyOf: releaseKeyOf,
    cause,
    ...(repin ? { repin: true } : {}),
  };
}

export interface PlanOrderOptions {
  cause: Cause;
  /** Only these vendors (default: every vendor of the order). */
  vendorIds?: readonly string[];
  /** What the caller has just read (the order as stored, the config), so it is not read again. */
  stored?: PaidOrder;
  config?: PlanningConfig;
  /**
   * Whether to read the order's events again after writing (default true; see planOrderReleases). A new order's first
   * plan skips it: nothing was stored under it to miss, and a racing event conflicts with its writes instead.
   */
  recheck?: boolean;
  /**
   * Read the settings and policies eventually consistent (the hot paths: order events, the release function); holds
   * are read consistently all the same. See DynamoConfigReader.
   */
  eventualConfig?: boolean;
}

/**
 * Plans every vendor of a paid order from all its stored events, the settings, the policies and the holds, and
 * records what changed; null for an order that is not paid yet. Safe to call any number of times. Each event (the
 * payment: its order record) is stored before this reads the order, so of two events racing, at least one sees both;
 * a conditional write that loses reads the order again, so that what the winner knew is never planned away. Every
 * release is written before any effect starts.
 *
 * Reads: one consistent query of the order, and a batch read of the settings, policies and holds (holds consistent; the
 * settings and policies too unless `eventualConfig`).
 */
export async function planOrderReleases(deps: Dependencies, orderId: string, options: PlanOrderOptions): Promise<VendorRelease[] | null> {
  let stored = options.stored ?? await loadPaid(deps, orderId);
  if (!stored) return null;
  const vendorIds = stored.order.vendors.map((v) => v.vendorId).filter((id) => !options.vendorIds || options.vendorIds.includes(id));
  const readConfig = () => deps.config.forPlanning(vendorIds, { eventual: options.eventualConfig });
  let config = options.config ?? await readConfig();
  /**
   * Each write, with what it was planned from: whether the vendor was held and which events were known (a lost write
   * reads the order and the config again, so vendors of one call may be planned from different reads).
   */
  const written: Planned[] = [];
  const result: VendorRelease[] = [];
  for (const vendorId of vendorIds) {
    for (let attempt = 1; ; attempt++) {
      const transition = plan(planInputOf(stored, vendorId, config, options.cause, deps.clock.now()));
      if (transition.kind === 'unchanged') {
        result.push(transition.release);
        break;
      }
      try {
        result.push(await writeRelease(deps, transition));
        written.push({ transition, held: config.holds.get(vendorId)?.held ?? false, events: new Set(stored.events.map((e) => e.key)) });
        break;
      } catch (error) {
        // Someone else wrote this release meanwhile (another event, the release function): plan again from theirs and
        // from the events as stored now (the writer may have planned from an event this call has not seen).
        if (!(error instanceof VersionConflictError) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
      }
      // The config too: a hold stored meanwhile must not be planned away by the hold this call read before it.
      [stored, config] = await Promise.all([loadPaid(deps, orderId).then((s) => s!), readConfig()]);
    }
  }
  // In one call: the order's audit entries become records of one append (one time index write), its sends one batch.
  await runEffects(deps, written.flatMap(({ transition }) => transition.effects));
  await confirmVendorHolds(deps, orderId, written, options);
  if (written.length === 0 || options.recheck === false) return result;
  const replanned = new Map((await recheckEvents(deps, orderId, written, options) ?? []).map((r) => [r.vendorId, r]));
  return result.map((r) => replanned.get(r.vendorId) ?? r);
}

interface Planned {
  transition: Write;
  held: boolean;
  events: Set<string>;
}

/**
 * Write, then read: an event stored after this call read the order, whose own handler read the order before this
 * call's write (and so saw nothing to change), would otherwise be planned away by this write, e.g. a dispute closed
 * while its opening was being planned would leave the release HELD. Of the two handlers, one sees the other: the other
 * handler sees this write, or this read sees its event. Planned again only when an event came that was not planned.
 */
async function recheckEvents(deps: Dependencies, orderId: string, written: Planned[], options: PlanOrderOptions): Promise<VendorRelease[] | null> {
  const fresh = await loadPaid(deps, orderId);
  if (!fresh) return null;
  const missed = written.filter((w) => fresh.events.some((e) => !w.events.has(e.key))).map((w) => w.transition.release.vendorId);
  if (missed.length === 0) return null;
  return planOrderReleases(deps, orderId, { cause: options.cause, vendorIds: missed, stored: fresh, eventualConfig: options.eventualConfig });
}

/**
 * A hold or unhold lists the vendor's releases once, after storing the hold: a release it could not see (a new one),
 * or one written HELD from a hold read before the change, would keep a plan from the old hold. So after writing those,
 * the hold is read again (write, then read, as the hold does the other way round), and the vendor is planned again
 * when it changed. Money never depends on this (the release function reads the hold after its claim); it keeps
 * HELD and `holdReason` true, and a release unheld.
 */
async function confirmVendorHolds(deps: Dependencies, orderId: string, written: Planned[], options: PlanOrderOptions): Promise<void> {
  const doubtful = written.filter(({ transition: t }) => t.expectedVersion === null || t.release.state === 'HELD');
  if (doubtful.length === 0) return;
  const fresh = await Promise.all(doubtful.map(({ transition }) => deps.holds.get(transition.release.vendorId)));
  const changed = doubtful.filter(({ held }, i) => (fresh[i]?.held ?? false) !== held).map(({ transition }) => transition.release.vendorId);
  if (changed.length > 0) await planOrderReleases(deps, orderId, { cause: options.cause, vendorIds: changed, eventualConfig: options.eventualConfig });
}

async function loadPaid(deps: Dependencies, orderId: string): Promise<PaidOrder | null> {
  const stored = await deps.orders.loadOrder(orderId);
  return stored.order ? { ...stored, order: stored.order } : null;
}

/**
 * One transition of one release asked for by a person or a policy change (manual release, retry, replan), from a
 * consistent read, retried when another writer came first. A refusal is a ConflictError `invalid_state` (HTTP 409)
 * naming the state; an unknown order or vendor is a NotFoundError.
 */
export async function transitionRelease(
  deps: Dependencies,
  ids: { orderId: string; vendorId: string },
  cause: Cause,
  make: (input: PlanInput & { current: VendorRelease }) => Transition | Refusal,
  config?: (base: PlanningConfig) => PlanningConfig,
): Promise<VendorRelease> {
  for (let attempt = 1; ; attempt++) {
    const stored = await deps.orders.loadOrder(ids.orderId);
    if (!stored.order) {
      throw new NotFoundError(stored.events.length > 0
        ? `order ${ids.orderId} is not paid yet: it has no releases until its order.paid arrives`
        : `order ${ids.orderId} is unknown: no order event was received for it`);
    }
    const paid: PaidOrder = { ...stored, order: stored.order };
    if (!paid.order.vendors.some((v) => v.vendorId === ids.vendorId)) {
      throw new NotFoundError(`vendor ${ids.vendorId} is not in order ${ids.orderId} (its vendors: ${paid.order.vendors.map((v) => v.vendorId).join(', ')})`);
    }
    const read = await deps.config.forPlanning([ids.vendorId]);
    const input = planInputOf(paid, ids.vendorId, config ? config(read) : read, cause, deps.clock.now());
    if (!input.current) throw new NotFoundError(`vendor ${ids.vendorId} of order ${ids.orderId} has no release yet; try again in a moment`);
    const transition = make({ ...input, current: input.current });
    if (transition.kind === 'refused') throw new ConflictError('invalid_state', transition.message);
    if (transition.kind === 'unchanged') return transition.release;
    try {
      const release = await writeRelease(deps, transition);
      await runEffects(deps, transition.effects);
      return release;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
    }
  }
}
