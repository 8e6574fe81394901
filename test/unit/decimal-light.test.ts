/**
 * The functions compute money with decimal.js-light at 40 significant digits (functions/domain/decimal.ts): every
 * operation functions/ uses gives, digit for digit, what decimal.js gives, on generated amounts, percentages and sums,
 * the rounding edges included: against decimal.js as the functions used it (20 digits) for money within the largest
 * amount, and against decimal.js at 40 digits on every operand, far past it, where decimal.js at 20 rounded the
 * intermediate results that decimal.js-light keeps exact.
 */
import Decimal20 from 'decimal.js';
import Light from '../../functions/domain/decimal';
import { MAX_AMOUNT } from '../../functions/domain/errors';

const Decimal40 = Decimal20.clone({ precision: 40 });

/** A seeded generator (a linear congruential one), so a failure names values that can be run again. */
function generator(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % below;
  };
}

const random = generator(17);

/** Amounts as the functions hold them: plain decimals, 0 to 2 places, from a paisa to `maxDigits` whole digits. */
function amount(maxDigits = 10): string {
  const digits = 1 + random(maxDigits);
  let whole = String(1 + random(9));
  for (let i = 1; i < digits; i += 1) whole += String(random(10));
  const places = random(3);
  let fraction = '';
  for (let i = 0; i < places; i += 1) fraction += String(random(10));
  return places > 0 ? `${whole}.${fraction}` : whole;
}

/** Percentages as a gateway's split sends them: up to 6 places, some past 100. */
function percentage(): string {
  const places = random(7);
  let fraction = '';
  for (let i = 0; i < places; i += 1) fraction += String(random(10));
  return places > 0 ? `${random(130)}.${fraction}` : String(random(130));
}

const EDGES = ['0', '0.00', '0.005', '0.015', '0.025', '0.045', '1.005', '2.675', '1.115', MAX_AMOUNT, '9999999999', '0.01', '7', '33.333333'];
const BIG_EDGES = ['99999999999.99', '100000000000', '12345678901234567.89', '99999999999999999999.99'];

const PERCENTAGE_EDGES = ['0', '100', '12.5', '33.333333', '66.666667', '0.000001', '99.999999', '0.5', '2.5'];

const samples = (make: () => string, n: number) => [...EDGES, ...Array.from({ length: n }, make)];

describe.each([
  ['decimal.js as the functions used it (20 digits), money within the largest amount', Decimal20, () => amount(), (make: () => string, n: number) => samples(make, n)],
  ['decimal.js at 40 digits, operands far past the largest amount', Decimal40, () => amount(20), (make: () => string, n: number) => [...BIG_EDGES, ...samples(make, n)]],
] as const)('decimal.js-light computes every money operation the functions use exactly as %s', (_name, Full, amount, samples) => {
  it('reads plain decimals and numbers alike, with the same places and the same text', () => {
    for (const text of samples(amount, 2000)) {
      const [full, light] = [new Full(text), new Light(text)];
      expect([text, light.toFixed(2), light.toFixed(), light.decimalPlaces()]).toEqual([text, full.toFixed(2), full.toFixed(), full.decimalPlaces()]);
    }
    for (const n of [0, 1, 0.1, 0.2, 100.25, 12.5, 1e15, 123456.78, 5e-7]) {
      expect([n, new Light(n).toFixed(), new Light(String(n)).toFixed(2)]).toEqual([n, new Full(n).toFixed(), new Full(String(n)).toFixed(2)]);
    }
  });

  it('adds, subtracts and compares alike (plus, minus, gt, lte, greaterThan, equals)', () => {
    const amounts = samples(amount, 1500);
    for (let i = 0; i < amounts.length; i += 1) {
      const [a, b] = [amounts[i], amounts[(i * 7 + 3) % amounts.length]];
      const [fa, la] = [new Full(a), new Light(a)];
      expect([a, b, la.plus(b).toFixed(), la.minus(b).toFixed(), la.minus(b).toFixed(2), la.gt(b), la.lte(b), la.greaterThan(b), la.equals(b), la.gt(0), la.lte(0)])
        .toEqual([a, b, fa.plus(b).toFixed(), fa.minus(b).toFixed(), fa.minus(b).toFixed(2), fa.gt(b), fa.lte(b), fa.greaterThan(b), fa.equals(b), fa.gt(0), fa.lte(0)]);
    }
  });

  it('sums long runs alike, where the 20 significant digits round (exposure, totals, forecasts)', () => {
    let [full, light] = [new Full(0) as InstanceType<typeof Full>, new Light(0)];
    for (const a of samples(amount, 3000)) {
      full = full.plus(a);
      light = light.plus(a);
      expect(light.toFixed(2)).toBe(full.toFixed(2));
    }
    expect(light.toFixed()).toBe(full.toFixed());
  });

  it('takes a percentage of an order amount alike: mul, div(100), toDecimalPlaces(2, ROUND_HALF_UP), toFixed(2)', () => {
    expect(Light.ROUND_HALF_UP).toBe(Full.ROUND_HALF_UP);
    const amounts = samples(amount, 1500);
    const percentages = [...PERCENTAGE_EDGES, ...Array.from({ length: 1500 }, percentage)];
    // The unrounded share is kept by no function: compared where both keep every digit (40); the paise always.
    const unrounded = (d: { toFixed(): string }) => (Full === Decimal40 ? d.toFixed() : '');
    for (let i = 0; i < amounts.length; i += 1) {
      const [a, p] = [amounts[i], percentages[i % percentages.length]];
      const full = new Full(a).mul(p).div(100);
      const light = new Light(a).mul(p).div(100);
      expect([a, p, unrounded(light), light.toDecimalPlaces(2, Light.ROUND_HALF_UP).toFixed(2), light.toFixed(2)])
        .toEqual([a, p, unrounded(full), full.toDecimalPlaces(2, Full.ROUND_HALF_UP).toFixed(2), full.toFixed(2)]);
    }
  });

  it('refuses what is no plain decimal, where decimal.js made a value the functions then refused (Infinity, NaN) or took a non-decimal (hexadecimal)', () => {
    for (const text of ['Infinity', '-Infinity', 'NaN', ' 5', '5 ', '1,5', '', 'abc', '0x10']) expect(() => new Light(text)).toThrow();
    for (const n of [Infinity, NaN]) expect(() => new Light(n)).toThrow();
    expect(new Full('Infinity').isFinite()).toBe(false);
  });
});
