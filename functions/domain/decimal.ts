/**
 * Money's decimal type: decimal.js-light (a third of decimal.js's size in every function bundle, by the same author,
 * README "Cold starts"), at 40 significant digits.
 *
 * decimal.js rounds every result to 20 significant digits (ROUND_HALF_UP); decimal.js-light truncates sums, products
 * and quotients to its precision instead. At 40 digits no money result Holdback computes is cut at all (amounts have
 * at most 12 digits, sums of them and an amount times a percentage far fewer than 40), so every sum, difference and
 * percentage share is exact, and its only rounding is the explicit one to paise (toFixed(2), toDecimalPlaces(2,
 * ROUND_HALF_UP)), as before. test/unit/decimal-light.test.ts compares each operation used with decimal.js.
 */
import LightDecimal from 'decimal.js-light';

export const Decimal = LightDecimal.clone({ precision: 40, rounding: LightDecimal.ROUND_HALF_UP });
export type Decimal = LightDecimal;
export default Decimal;
