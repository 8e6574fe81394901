/**
 * Honest holds (contract 6.4): every hold has a source, and lifting it needs the same source or a stronger one.
 * Strength, strongest first: dispute, risk, finance, vendor_request.
 */
import { HOLD_SOURCES, type HoldSource, type VendorHold } from './types';

/** A hold stored before sources existed was placed by finance (the only hold there was). */
export const DEFAULT_HOLD_SOURCE: HoldSource = 'finance';

/** 0 is the strongest. */
function rank(source: HoldSource): number {
  return HOLD_SOURCES.indexOf(source);
}

export function isHoldSource(value: unknown): value is HoldSource {
  return typeof value === 'string' && (HOLD_SOURCES as readonly string[]).includes(value);
}

export function sourceOf(hold: Pick<VendorHold, 'source'> | null | undefined): HoldSource {
  return hold?.source ?? DEFAULT_HOLD_SOURCE;
}

/** The stronger of two sources (a hold placed again by a weaker source keeps the stronger one). */
export function strongerSource(a: HoldSource, b: HoldSource): HoldSource {
  return rank(a) <= rank(b) ? a : b;
}

/** Whether `by` may lift a hold placed by `placedBy`: the same source or a stronger one. */
export function mayLift(placedBy: HoldSource, by: HoldSource): boolean {
  return rank(by) <= rank(placedBy);
}

/** The sources that may lift a hold of `placedBy`, strongest first. */
export function liftersOf(placedBy: HoldSource): HoldSource[] {
  return HOLD_SOURCES.filter((s) => mayLift(placedBy, s));
}
