/**
 * The release store of the use cases: the one read-decide-write loop (a conditional write on the release's version, read
 * and decided again when another writer came first), the effects run after a write, and the planning of an order's
 * vendor releases with it. Every use case writes a release through here, and stamps and appends to the audit log the
 * same way (storedInstant, appendAudit).
 */
import { plan, vendorFacts, type PlanInput } from '../domain/release/plan';
import { releaseKeyOf, stamp, type Cause, type Effect, type Refusal, type Transition, type Write } from '../domain/release/states';
import { vendorsOutsideOrder } from '../domain/order-events';
import { defaultPolicy } from '../domain/settings';
import type { OrderRecord, VendorRelease } from '../domain/types';
import { ConflictError, NotFoundError, describeError } from './errors';
import { VersionConflictError, type AppendOptions, type AuditEntry, type Dependencies, type PlanningConfig, type StoredOrder } from './ports';

/**
 * Stored times are India time, the gateway's clock, so that text order is time order in the table: the machine's one
 * write stamp, used by every area for what it stores.
 */
export const storedInstant = stamp;

/** Appends to the audit log; a failure is logged and swallowed (the log keeps and retries what it could not write). */
export async function appendAudit(deps: Dependencies, entries: AuditEntry[], options?: AppendOptions): Promise<void> {
  if (entries.length === 0) return;
  // A change made through the API carries its caller's proven principal beside the free-text actor (contract 6.4).
  const principal = deps.caller?.principal;
  const stamped = principal ? entries.map((e) => (e.principal === undefined ? { ...e, principal } : e)) : entries;
  try {
    await deps.audit.append(stamped, options);
  } catch (error) {
    deps.logger.error('audit entries not appended', { kinds: entries.map((e) => e.kind), error: describeError(error) });
  }
}

/** Release keys are the Scheduler schedule names (the machine's releaseKeyOf). */
export { releaseKeyOf };

/** How often a use case re-reads and recomputes after a conditional write lost a race. */
export const MAX_WRITE_ATTEMPTS = 5;

/** Writes the release conditionally (VersionConflictError when another writer came first); effects are not run. */
export async function writeRelease(deps: Dependencies, write: Write): Promise<VendorRelease> {
  await deps.orders.putRelease(write.release, write.expectedVersion);
  return write.release;
}

/** What one read-and-decide found: a write to make (then `value`), or nothing to write (`value` as it is). */
export type Decision<T> = { write: Write; value: T } | { write: null; value: T };

/**
 * The one read-decide-write loop: `decide` reads what it needs and asks the machine; its write is made conditional on
 * the version it read, and when another writer came first, read and decided again (at most MAX_WRITE_ATTEMPTS times).
 * Effects are not run here: the caller runs them once the write (or a batch of writes) is stored.
 */
export async function readDecideWrite<T>(deps: Dependencies, decide: (attempt: number) => Promise<Decision<T>>): Promise<Decision<T>> {
  for (let attempt = 1; ; attempt++) {
    const decision = await decide(attempt);
    if (decision.write === null) return decision;
    try {
      await writeRelease(deps, decision.write);
      return decision;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Runs what the machine asked for after a write: schedule changes in order, then the sends as one batch, the events
 * as one and the audit entries as one append. None of them may undo or repeat the write: a failed
 * schedule or enqueue is re-driven by the sweep (the release is stored with its `sendAt`), a failed publish or audit
 * append is logged, never thrown, so that an outside failure never makes a release fail or send twice.
 */
export async function runEffects(deps: Dependencies, effects: Effect[], audit?: AppendOptions): Promise<void> {
  const audits: AuditEntry[] = [];
  const enqueue = effects.flatMap((e) => (e.kind === 'enqueue' ? [e.command] : []));
  const publish = effects.flatMap((e) => (e.kind === 'publish' ? [e.event] : []));
  for (const effect of effects) {
    const ids = 'command' in effect ? { orderId: effect.command.orderId, vendorId: effect.command.vendorId } : {};
    try {
      if (effect.kind === 'cancel_schedule') await deps.scheduler.cancel(effect.releaseKey);
      else if (effect.kind === 'schedule') await deps.scheduler.schedule(effect.command, effect.at);
      else if (effect.kind === 'audit') audits.push(effect.entry);
    } catch (error) {
      deps.logger.error(`release effect ${effect.kind} failed; the sweep re-drives the release`, { ...ids, error: describeError(error) });
    }
  }
  if (enqueue.length > 0) {
    await deps.queue.enqueue(enqueue).catch((error: unknown) => {
      deps.logger.error('release commands not enqueued; the sweep re-drives them', { commands: enqueue, error: describeError(error) });
    });
  }
  if (publish.length > 0) {
    await deps.publisher.publish(publish).catch((error: unknown) => {
      deps.logger.error('publishing release events failed', { events: publish.map((e) => e.type), error: describeError(error) });
    });
  }
  await appendAudit(deps, audits, audit);
}

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
   * The order was created by this call: its audit stream holds no record yet, so the first pass's append does not
   * read the stream's head (AppendOptions.newOrders; a wrong guess only costs a refused put and the read).
   */
  newOrder?: boolean;
}

/** One planning pass over some vendors of the order, and what is done after it. */
type Task =
  /** Plan `vendorIds` (all: undefined) from `stored` (read here when absent); `merge`: its releases are the answer's. */
  | { kind: 'plan'; vendorIds?: readonly string[]; stored?: PaidOrder; config?: PlanningConfig; recheck: boolean; merge: boolean; newOrder?: boolean }
  /** Read the order again after a pass's writes, and plan again the vendors whose writes missed an event. */
  | { kind: 'recheck'; written: Planned[]; merge: boolean };

/**
 * Plans every vendor of a paid order from all its stored events, the settings, the policies and the holds, and
 * records what changed; null for an order that is not paid yet. Safe to call any number of times. Each event (the
 * payment: its order record) is stored before this reads the order, so of two events racing, at least one sees both;
 * a conditional write that loses reads the order again, so that what the winner knew is never planned away. Every
 * release is written before any effect starts.
 *
 * After a pass come its checks (write, then read; see confirmVendorHolds and recheckEvents), each of which may plan
 * some vendors again: a stack of tasks, worked depth first, in the order the checks were once recursive calls.
 *
 * Reads: one consistent query of the order, and a consistent read of the settings, policies and holds (kept by a warm
 * container while the config stamp has not moved: DynamoConfigReader).
 */
export async function planOrderReleases(deps: Dependencies, orderId: string, options: PlanOrderOptions): Promise<VendorRelease[] | null> {
  const stored = options.stored ?? await loadPaid(deps, orderId);
  if (!stored) return null;
  let result: VendorRelease[] | null = null;
  const tasks: Task[] = [{ kind: 'plan', vendorIds: options.vendorIds, stored, config: options.config, recheck: options.recheck !== false, merge: true, newOrder: options.newOrder }];
  while (tasks.length > 0) {
    const task = tasks.shift()!;
    if (task.kind === 'recheck') {
      const missed = await recheckEvents(deps, orderId, task.written);
      if (missed) tasks.unshift({ kind: 'plan', vendorIds: missed.vendorIds, stored: missed.fresh, recheck: true, merge: task.merge });
      continue;
    }
    const pass = await planPass(deps, orderId, task, options);
    if (!pass) continue;
    if (result === null) result = pass.releases;
    else if (task.merge) {
      const replanned = new Map(pass.releases.map((r) => [r.vendorId, r]));
      result = result.map((r) => replanned.get(r.vendorId) ?? r);
    }
    const next: Task[] = [];
    const changed = await confirmVendorHolds(deps, pass.written);
    if (changed.length > 0) next.push({ kind: 'plan', vendorIds: changed, recheck: true, merge: false });
    if (pass.written.length > 0 && task.recheck) next.push({ kind: 'recheck', written: pass.written, merge: task.merge });
    tasks.unshift(...next);
  }
  return result;
}

/** One pass: each vendor planned and written through the one loop, then every write's effects in one call. */
async function planPass(
  deps: Dependencies, orderId: string, task: Extract<Task, { kind: 'plan' }>, options: PlanOrderOptions,
): Promise<{ releases: VendorRelease[]; written: Planned[] } | null> {
  let stored = task.stored ?? await loadPaid(deps, orderId);
  if (!stored) return null;
  const vendorIds = stored.order.vendors.map((v) => v.vendorId).filter((id) => !task.vendorIds || task.vendorIds.includes(id));
  const readConfig = () => deps.config.forPlanning(vendorIds);
  let config = task.config ?? await readConfig();
  /**
   * Each write, with what it was planned from: whether the vendor was held and which events were known (a lost write
   * reads the order and the config again, so vendors of one call may be planned from different reads).
   */
  const written: Planned[] = [];
  const releases: VendorRelease[] = [];
  for (const vendorId of vendorIds) {
    const decision = await readDecideWrite(deps, async (attempt) => {
      // Someone else wrote this release meanwhile (another event, the release function): plan again from theirs and
      // from the events as stored now (the writer may have planned from an event this call has not seen); the config
      // too: a hold stored meanwhile must not be planned away by the hold this call read before it.
      if (attempt > 1) [stored, config] = await Promise.all([loadPaid(deps, orderId).then((s) => s!), readConfig()]);
      const transition = plan(planInputOf(stored!, vendorId, config, options.cause, deps.clock.now()));
      return transition.kind === 'unchanged'
        ? { write: null, value: { release: transition.release, held: false, events: new Set<string>() } }
        : { write: transition, value: { release: transition.release, held: config.holds.get(vendorId)?.held ?? false, events: new Set(stored!.events.map((e) => e.key)) } };
    });
    releases.push(decision.value.release);
    if (decision.write) written.push({ transition: decision.write, held: decision.value.held, events: decision.value.events });
  }
  // In one call: the order's audit entries become records of one append (one time index write), its sends one batch.
  await runEffects(deps, written.flatMap(({ transition }) => transition.effects), task.newOrder ? { newOrders: [orderId] } : undefined);
  return { releases, written };
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
 * handler sees this write, or this read sees its event. The vendors to plan again: those whose write missed an event.
 */
async function recheckEvents(deps: Dependencies, orderId: string, written: Planned[]): Promise<{ vendorIds: string[]; fresh: PaidOrder } | null> {
  const fresh = await loadPaid(deps, orderId);
  if (!fresh) return null;
  const missed = written.filter((w) => fresh.events.some((e) => !w.events.has(e.key))).map((w) => w.transition.release.vendorId);
  return missed.length === 0 ? null : { vendorIds: missed, fresh };
}

/**
 * A hold or unhold lists the vendor's releases once, after storing the hold: a release it could not see (a new one),
 * or one written HELD from a hold read before the change, would keep a plan from the old hold. So after writing those,
 * the hold is read again (write, then read, as the hold does the other way round): the vendors whose hold changed are
 * planned again. Money never depends on this (the release function reads the hold after its claim); it keeps
 * HELD and `holdReason` true, and a release unheld.
 */
async function confirmVendorHolds(deps: Dependencies, written: Planned[]): Promise<string[]> {
  const doubtful = written.filter(({ transition: t }) => t.expectedVersion === null || t.release.state === 'HELD');
  if (doubtful.length === 0) return [];
  const fresh = await Promise.all(doubtful.map(({ transition }) => deps.holds.get(transition.release.vendorId)));
  return doubtful.filter(({ held }, i) => (fresh[i]?.held ?? false) !== held).map(({ transition }) => transition.release.vendorId);
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
  const decision = await readDecideWrite(deps, async () => {
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
    return transition.kind === 'unchanged' ? { write: null, value: transition.release } : { write: transition, value: transition.release };
  });
  if (decision.write) await runEffects(deps, decision.write.effects);
  return decision.value;
}
