/** Monthly EMI instalment by standard amortisation, in decimal arithmetic (never floats). */
import Decimal from 'decimal.js';

/**
 * P·r·(1+r)^n / ((1+r)^n − 1) with r = annual / 12 / 100; a 0% (No Cost) plan is P / n.
 * Rounded to paise, half up, as a customer would see it on a checkout page.
 */
export function monthlyInstalment(principal: Decimal.Value, annualRatePercent: Decimal.Value, months: number): string {
  if (!Number.isInteger(months) || months <= 0) throw new RangeError(`months must be a positive integer; got ${months}`);
  const p = new Decimal(principal);
  const r = new Decimal(annualRatePercent).div(12).div(100);
  if (r.isZero()) return p.div(months).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
  const growth = r.plus(1).pow(months);
  return p.mul(r).mul(growth).div(growth.minus(1)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}
