/**
 * The exposure of early releases as the send path changes it (contract 6.4): an early release is entered in the
 * vendor's exposure when it is claimed for sending, after a check against the policy's maxExposure that two concurrent
 * sends cannot both pass (the entry is written before the vendor and currency's version is moved conditionally; a
 * writer that loses the move reads again, the winner's entry included). One that would pass the cap waits.
 */
import { INDIA_TIME } from '../../domain/dates';
import { type Instant, wholeSecondAt } from '../../domain/instant';
import { capOf, checkCap, isEarly, riskClosesAtMs, type ExposureEntry } from '../../domain/exposure';
import { vendorFacts, waitForExposure, type PlanInput, type SendNow, type Write } from '../../domain/release';
import type { Settings, VendorRelease } from '../../domain/types';
import type { Dependencies } from '../ports';
import { releaseKeyOf } from '../release-store';

/** Tries of the conditional move before the claim is left to the sweep (another send of the vendor kept winning). */
const CAP_TRIES = 5;

export type Reservation = { kind: 'go'; send: SendNow } | { kind: 'wait'; write: Write };

/** What the entry depends on besides the send: when the order was delivered (null: not yet), the settings, now. */
type EntryFacts = Pick<PlanInput, 'settings' | 'now'> & { deliveredAt: Instant | null };

/** The release's exposure entry (when its send is early and its risk window still open), or null. */
function entryOf(send: Pick<SendNow, 'release' | 'eligibility'>, input: EntryFacts, currency: string): ExposureEntry | null {
  const release = send.release;
  if (!isEarly(send.eligibility.ms, release.maxEligibility)) return null;
  const closesMs = riskClosesAtMs({ transactionTime: release.transactionTime, maxEligibility: release.maxEligibility, deliveredAt: input.deliveredAt, settings: input.settings });
  if (closesMs <= input.now.ms) return null;
  return {
    vendorId: release.vendorId, currency, orderId: release.orderId, amount: release.amount,
    closesAt: wholeSecondAt(closesMs, INDIA_TIME),
    releasedAt: input.now.in(INDIA_TIME).wholeSecond(),
  };
}

/**
 * The exposure that a send of `eligibility` enters on the release (reserveExposure's `entered`) if the order was not
 * delivered and `settings` hold: the claim's guess (claimWithFirstSend), checked against what is entered after the reads.
 */
export function expectedExposure(release: VendorRelease, eligibility: Instant, settings: Settings, now: Instant): VendorRelease['exposure'] {
  if (!release.currency) return null;
  const entry = entryOf({ release, eligibility }, { settings, now, deliveredAt: null }, release.currency);
  return entry ? { currency: entry.currency, amount: entry.amount, closesAt: entry.closesAt } : null;
}

/**
 * Enters the send's money in the vendor's exposure, or answers the WAITING write when it would pass the cap. Runs
 * after the claim and the plan after it, just before the PUT is put on the record.
 */
export async function reserveExposure(deps: Pick<Dependencies, 'exposure' | 'clock'>, send: SendNow, input: PlanInput): Promise<Reservation> {
  const release = send.release;
  const currency = release.currency ?? input.order.currency;
  const entry = entryOf(send, { settings: input.settings, now: input.now, deliveredAt: input.facts.deliveredAt }, currency);
  // A send claimed again (a retry, a wait) leaves no stale entry behind, wherever a delivery moved its close.
  if (release.exposure) await removeOrderEntries(deps, release, release.exposure, deliveredCloseMs(release, input.facts.deliveredAt, input.settings), input.now);
  if (!entry) return { kind: 'go', send: { ...send, release: { ...release, exposure: null } } };
  const cap = capOf(input.policy, currency);
  const now = input.now.in(INDIA_TIME).wholeSecond();
  const entered: VendorRelease = { ...release, exposure: { currency, amount: entry.amount, closesAt: entry.closesAt } };
  if (cap === null) {
    await deps.exposure.put(entry);
    return { kind: 'go', send: { ...send, release: entered } };
  }
  for (let tries = 0; tries < CAP_TRIES; tries += 1) {
    const version = await deps.exposure.version(release.vendorId, currency);
    const others = (await deps.exposure.open(release.vendorId, now, currency)).filter((e) => e.orderId !== release.orderId);
    const check = checkCap({ entries: others, cap, amount: release.amount, currency, nowMs: input.now.ms, zone: input.settings.timezone });
    if (!check.fits) {
      await deps.exposure.remove(entry);
      const maxMs = release.maxEligibility.ms;
      return {
        kind: 'wait',
        write: waitForExposure({
          current: release, message: check.message, untilMs: Math.min(check.fitsAtMs ?? maxMs, maxMs), now: input.now, keyOf: releaseKeyOf,
          figures: { exposure: check.exposure.toFixed(2), maxExposure: check.cap.toFixed(2), amount: check.amount.toFixed(2), currency, exceededBy: check.exceededBy.toFixed(2) },
        }),
      };
    }
    await deps.exposure.put(entry);
    if (await deps.exposure.bump(release.vendorId, currency, version)) return { kind: 'go', send: { ...send, release: entered } };
  }
  throw new Error(`exposure of vendor ${release.vendorId} in ${currency} kept changing during ${CAP_TRIES} cap checks; the sweep tries the release again`);
}

/** A release that ended without its money leaving (refused, cancelled, left at max) leaves the exposure. */
export async function releaseExposure(deps: Pick<Dependencies, 'exposure' | 'clock'>, release: VendorRelease): Promise<void> {
  if (!release.exposure) return;
  if (release.state !== 'FAILED' && release.state !== 'CANCELLED' && release.state !== 'AT_MAX') return;
  await removeOrderEntries(deps, release, release.exposure, 'unknown', deps.clock.now());
}

/** Removes the open entries of this order and vendor, wherever a delivery may have moved their close. */
async function removeOrderEntries(deps: Pick<Dependencies, 'exposure'>, release: Pick<VendorRelease, 'orderId' | 'vendorId'>, entered: Entered, delivered: DeliveredClose, now: Instant): Promise<void> {
  const mine = await orderEntries(deps, release, entered, delivered, now);
  await Promise.all(mine.map((e) => deps.exposure.remove(e)));
}

/** The release's money as its claim entered it. */
type Entered = NonNullable<VendorRelease['exposure']>;
/**
 * Where the order's delivery moves the entry's close (`followDelivery`) under today's settings: null when the order
 * was not delivered (so never moved), `unknown` when the caller does not know the order's delivery.
 */
type DeliveredClose = number | null | 'unknown';

function deliveredCloseMs(release: VendorRelease, deliveredAt: Instant | null, settings: Settings): number | null {
  if (!deliveredAt) return null;
  return riskClosesAtMs({ transactionTime: release.transactionTime, maxEligibility: release.maxEligibility, deliveredAt, settings });
}

/**
 * The order's open entries of one vendor and currency, read by key (one or two GetItems) where its claim entered the
 * money and where its delivery moves it: never by the vendor's query, whose size grows with the vendor's open early
 * releases (a big vendor's every delivery and retry would read them all), unless the keys cannot tell. They tell
 * when one holds an open entry, or when the last place the money can be holds a closed or removed one. They cannot
 * when the entered key holds a removed entry and the delivery is unknown (the money may have moved), or when the
 * last key was never written (a claim that died before its entry, or a close moved under other settings).
 */
async function orderEntries(deps: Pick<Dependencies, 'exposure'>, release: Pick<VendorRelease, 'orderId' | 'vendorId'>, entered: Entered, delivered: DeliveredClose, now: Instant): Promise<ExposureEntry[]> {
  const closes = typeof delivered === 'number' && delivered !== entered.closesAt.ms ? [entered.closesAt, wholeSecondAt(delivered, INDIA_TIME)] : [entered.closesAt];
  const found = await deps.exposure.atCloses(release.vendorId, entered.currency, release.orderId, closes);
  const open = found.flatMap((f) => (f.entry !== 'removed' && f.entry.closesAt.ms > now.ms ? [f.entry] : []));
  if (open.length > 0) return open;
  const last = found.find((f) => f.closesAt.ms === closes[closes.length - 1].ms);
  const told = last !== undefined && (delivered !== 'unknown' || last.entry !== 'removed');
  if (told) return [];
  return (await deps.exposure.open(release.vendorId, now.in(INDIA_TIME).wholeSecond(), entered.currency)).filter((e) => e.orderId === release.orderId);
}

/**
 * A delivery after an early release moves its risk close: the order can be refunded for `riskWindow` after the
 * delivery, not after the payment (never past max eligibility). Each entry of the order is moved to its new close.
 */
export async function followDelivery(deps: Pick<Dependencies, 'exposure' | 'clock' | 'orders' | 'settings'>, orderId: string): Promise<void> {
  const [stored, settings] = await Promise.all([deps.orders.loadOrder(orderId), deps.settings.get()]);
  const now = deps.clock.now();
  for (const release of stored.releases) {
    if (!release.exposure) continue;
    const facts = vendorFacts(stored.events.map((e) => e.event), release.vendorId);
    const closesMs = riskClosesAtMs({ transactionTime: release.transactionTime, maxEligibility: release.maxEligibility, deliveredAt: facts.deliveredAt, settings });
    const current = await orderEntries(deps, release, release.exposure, closesMs, now);
    const closesAt = wholeSecondAt(closesMs, INDIA_TIME);
    if (current.length === 0 || current.every((e) => e.closesAt.ms === closesMs)) continue;
    if (closesMs > now.ms) await deps.exposure.put({ ...current[0], closesAt });
    await Promise.all(current.filter((e) => e.closesAt.ms !== closesMs).map((e) => deps.exposure.remove(e)));
  }
}
