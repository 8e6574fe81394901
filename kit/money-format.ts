/**
 * Money as people read it, in the currency's own convention: INR grouped the Indian way (`INR 1,00,000.00`), every
 * other currency in thousands (`USD 100,000.00`). Used by the console and the CLI alike. Intl.NumberFormat is given the
 * decimal text itself (exact on Node 20 and 24 and current browsers; amounts are below 2^53 hundredths anyway), so no
 * float ever decides a digit.
 */

const formatters = new Map<string, Intl.NumberFormat>();

function formatterOf(currency: string): Intl.NumberFormat {
  const locale = currency === 'INR' ? 'en-IN' : 'en-US';
  let formatter = formatters.get(locale);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: true });
    formatters.set(locale, formatter);
  }
  return formatter;
}

/** The digits of a decimal amount grouped by its currency's convention ("1,00,000.00" for INR); null for non-decimal text. */
export function groupedAmount(amount: string, currency: string): string | null {
  if (!/^-?\d+(\.\d+)?$/.test(amount)) return null;
  return (formatterOf(currency).format as unknown as (value: string) => string)(amount);
}

/** "INR 1,00,000.00", "USD 100,000.00"; a dash for no amount; text that is not a decimal shown as it is. */
export function moneyText(amount: string | number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const text = String(amount);
  const grouped = groupedAmount(text, currency);
  return grouped === null ? `${text} ${currency}` : `${currency} ${grouped}`;
}
