/** How the console writes times and money: India time with its offset shown, amounts as decimal text with the currency. */
import { moneyText } from '../../kit/money-format';

const INDIA_OFFSET_MINUTES = 330;
export const INDIA_OFFSET = '+05:30';

/** "2022-12-05 16:05 IST (+05:30)"; seconds only when they are not zero. Null shows as a dash. */
export function indiaTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const shifted = new Date(ms + INDIA_OFFSET_MINUTES * 60_000).toISOString();
  const seconds = shifted.slice(17, 19);
  return `${shifted.slice(0, 10)} ${shifted.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`} IST (${INDIA_OFFSET})`;
}

/** The India-time calendar day ("YYYY-MM-DD") of an instant. */
export function indiaDay(iso: string): string {
  return new Date(Date.parse(iso) + INDIA_OFFSET_MINUTES * 60_000).toISOString().slice(0, 10);
}

/** A day plus n days, as "YYYY-MM-DD". */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Midnight India time of a day, as ISO with the offset (for `from` / `to` queries). */
export function dayStart(day: string): string {
  return `${day}T00:00:00${INDIA_OFFSET}`;
}

/** What a date field takes, shown as its placeholder and hint. */
export const INDIA_TIME_EXAMPLE = '2026-11-26 14:30 IST';
export const INDIA_TIME_HINT = `India time, e.g. ${INDIA_TIME_EXAMPLE}, 2026-11-26 (the day's start) or 2026-11-26T14:30:00+05:30`;

/**
 * A date typed in India time, as an ISO instant with +05:30: "2026-11-26 14:30 IST", "2026-11-26 14:30", "2026-11-26",
 * "2026-11-26T14:30+05:30" (what the console shows is read back too: "2026-11-26 14:30 IST (+05:30)"). An instant with
 * another explicit offset is sent as it is; text it cannot read is sent as typed, so the API names the field.
 */
export function fromIndiaLocal(value: string): string | undefined {
  const text = value.trim();
  if (!text) return undefined;
  const m = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?)?\s*(IST)?\s*\(?(\+05:?30)?\)?$/i.exec(text);
  if (m) return `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}${INDIA_OFFSET}`;
  return text;
}

/**
 * An amount in its currency's own convention: INR in lakh grouping (INR 1,00,000.00), others in thousands
 * (USD 100,000.00). The currency is always given: amounts of two currencies are never shown as one.
 */
export function money(amount: string | number | null | undefined, currency: string | null | undefined): string {
  if (!currency) return amount === null || amount === undefined || amount === '' ? '—' : `${amount} (currency not known)`;
  return moneyText(amount, currency);
}

/** A release rule in words: "after delivery + P2D". */
export function ruleText(release: { kind?: string; delay?: string } | null | undefined): string {
  if (!release?.kind) return '—';
  const words = release.kind.replace(/_/g, ' ');
  return release.delay ? `${words} + ${release.delay}` : words;
}
