/** Money in its currency's own convention (console and CLI): INR in lakh grouping, others in thousands; never a float. */
import { moneyText } from '../../kit/money-format';

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
