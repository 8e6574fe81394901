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

/**
 * A count grouped in thousands ("100,000"), without Intl: the API's route descriptions are built when a function loads,
 * and a process's first Intl formatter loads ICU's data (about 9 ms of CPU, a sixth of a cold start).
 */
export function groupedCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "INR 1,00,000.00", "USD 100,000.00"; a dash for no amount; text that is not a decimal shown as it is. */
export function moneyText(amount: string | number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const text = String(amount);
  const grouped = groupedAmount(text, currency);
  return grouped === null ? `${text} ${currency}` : `${currency} ${grouped}`;
}

/**
 * Counts and sums of decimal amounts per currency, in hundredths as integers (never a float sum, never across
 * currencies): the totals the console and the CLI print.
 */
export class CurrencySums {
  private readonly sums = new Map<string, { count: number; hundredths: bigint }>();

  add(currency: string, amount: string, count = 1): void {
    const negative = amount.startsWith('-');
    const [whole, fraction = ''] = amount.replace(/^-/, '').split('.');
    const hundredths = (BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2))) * (negative ? -1n : 1n);
    const sum = this.sums.get(currency) ?? { count: 0, hundredths: 0n };
    sum.count += count;
    sum.hundredths += hundredths;
    this.sums.set(currency, sum);
  }

  /** Each currency's count and sum (decimal text with two places), by currency code. */
  entries(): Array<{ currency: string; count: number; amount: string }> {
    return [...this.sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, s]) => {
      const size = s.hundredths < 0n ? -s.hundredths : s.hundredths;
      return { currency, count: s.count, amount: `${s.hundredths < 0n ? '-' : ''}${size / 100n}.${String(size % 100n).padStart(2, '0')}` };
    });
  }

  /** "INR 1,00,100.00 (2) · USD 1,000.00 (1)" with `format` choosing each part's words; `empty` when nothing was added. */
  text(format: (money: string, count: number) => string, separator: string, empty: string): string {
    const parts = this.entries().map((e) => format(moneyText(e.amount, e.currency), e.count));
    return parts.length === 0 ? empty : parts.join(separator);
  }
}
