/** Money in its currency's own convention (console and CLI): INR in lakh grouping, others in thousands; never a float. */
import { CurrencySums, moneyText, groupedCount } from '../../kit/money-format';

test('INR is grouped the Indian way, other currencies in thousands', () => {
  expect(moneyText('100000', 'INR')).toBe('INR 1,00,000.00');
  expect(moneyText('100000', 'USD')).toBe('USD 100,000.00');
  expect(moneyText('1100.5', 'INR')).toBe('INR 1,100.50');
  expect(moneyText('9999999999.99', 'INR')).toBe('INR 9,99,99,99,999.99');
  expect(moneyText('9999999999.99', 'EUR')).toBe('EUR 9,999,999,999.99');
});

test('no amount is a dash; text that is not a decimal is shown as it is, with its currency', () => {
  expect(moneyText(null, 'INR')).toBe('—');
  expect(moneyText('', 'USD')).toBe('—');
  expect(moneyText('n/a', 'USD')).toBe('n/a USD');
});

test('sums per currency in hundredths: never a float, never across currencies', () => {
  const sums = new CurrencySums();
  sums.add('INR', '0.10');
  sums.add('INR', '0.20');
  sums.add('USD', '1000');
  sums.add('INR', '99999.7', 3);
  expect(sums.entries()).toEqual([{ currency: 'INR', count: 5, amount: '100000.00' }, { currency: 'USD', count: 1, amount: '1000.00' }]);
  expect(sums.text((money, count) => `${money} (${count})`, ' · ', 'nothing')).toBe('INR 1,00,000.00 (5) · USD 1,000.00 (1)');
  expect(new CurrencySums().text(() => 'x', ', ', 'nothing')).toBe('nothing');
});

test('a count is grouped in thousands without Intl (the route descriptions built at a cold start), as en-US groups it', () => {
  for (const n of [0, 7, 999, 1000, 20000, 100000, 1234567, 9007199254740991]) expect([n, groupedCount(n)]).toEqual([n, n.toLocaleString('en-US')]);
  expect(groupedCount(100000)).toBe('100,000');
});
