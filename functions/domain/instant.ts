/**
 * The one time value of the domain: an instant (epoch milliseconds) and the UTC offset it is written in (minutes), so a
 * stored time stays "an instant with an offset" when it is written back. Immutable; arithmetic is on the number (no
 * luxon per step: decisions run for every event, send and preview). Text is read and written here, with luxon only for
 * the rare ISO forms the fast reader leaves, calendar-relative durations and zones with daylight saving.
 */
import { DateTime, Duration, FixedOffsetZone, Info, type Zone } from 'luxon';
import { DAY_MS, MINUTE_MS, dateOfDayNumber, dayNumberOfDate, indiaDayOf, indiaMidnight } from '../../kit/civil-days';
import { ValidationError } from './errors';

/** The gateway's wall clock (UTC+05:30, no daylight saving). */
export const GATEWAY_ZONE = 'Asia/Kolkata';
export { DAY_MS, MINUTE_MS };
/** India time's offset in minutes: one offset since 1945, no daylight saving. */
export const INDIA_OFFSET_MINUTES = 330;
/**
 * India time as a fixed +05:30 luxon zone: arithmetic in it is exact, and luxon does it without asking Intl for the
 * offset of every instant (that made predictions ~100x slower).
 */
export const INDIA_TIME: Zone = FixedOffsetZone.instance(INDIA_OFFSET_MINUTES);

/**
 * The UTC offsets (minutes) that exist: from -12:00 (Baker Island) to +14:00 (Kiribati). ISO 8601's syntax allows
 * "+99:00", which is a typing error and would move the instant by days.
 */
export const MIN_OFFSET_MINUTES = -12 * 60;
export const MAX_OFFSET_MINUTES = 14 * 60;

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;
const INSTANT_EXAMPLE = 'an ISO 8601 time with an offset, e.g. "2022-12-02T16:00:00+05:30"';

/** A value as an error message quotes it. */
export function describe(text: unknown): string {
  if (typeof text === 'string') return `"${text.length > 60 ? `${text.slice(0, 60)}...` : text}"`;
  if (text === undefined) return 'missing';
  return `a ${text === null ? 'null' : typeof text}`;
}

/** A zone as settings name it (IANA name, "UTC", "UTC+5:30") or a luxon zone. */
export type ZoneLike = string | Zone;

/** An instant with the offset it is written in. */
export class Instant {
  private constructor(
    /** Epoch milliseconds. */
    readonly ms: number,
    /** Minutes east of UTC that its text carries (330 for India time, 0 for "Z"). */
    readonly offset: number,
  ) {}

  /** ISO 8601 with an offset or Z; the offset given is kept. A time without an offset is ambiguous, so it is refused. */
  static parse(text: unknown, field: string): Instant {
    if (typeof text !== 'string') throw notAnInstant(text, field);
    return plainInstant(text.trim()) ?? Instant.fromDateTime(generalInstant(text, field));
  }

  /** Instant.parse of an optional field: null stays null. */
  static parseOrNull(text: string | null | undefined, field: string): Instant | null {
    return text === null || text === undefined ? null : Instant.parse(text, field);
  }

  /** The instant `ms` written in `zone` (its offset at that instant; India time when no zone is given). */
  static at(ms: number, zone: ZoneLike = INDIA_TIME): Instant {
    const offset = fixedOffsetOf(zone, ms);
    return new Instant(ms, offset ?? zoneObject(zone).offset(ms));
  }

  /** The system clock's instant, in UTC. */
  static now(): Instant {
    return new Instant(Date.now(), 0);
  }

  /** The instant `ms` with the offset `offset` (minutes east of UTC). */
  static withOffset(ms: number, offset: number): Instant {
    return new Instant(ms, offset);
  }

  /** A luxon DateTime as an Instant (its zone's offset at that instant): for edges that still hold luxon values. */
  static fromDateTime(dt: DateTime): Instant {
    return new Instant(dt.toMillis(), dt.offset);
  }

  /** The same instant written in `zone`. */
  in(zone: ZoneLike): Instant {
    return Instant.at(this.ms, zone);
  }

  /** The same instant written with `offset` (minutes east of UTC). */
  inOffset(offset: number): Instant {
    return offset === this.offset ? this : new Instant(this.ms, offset);
  }

  /** This instant plus `ms` milliseconds, in the same offset. */
  plusMs(ms: number): Instant {
    return new Instant(this.ms + ms, this.offset);
  }

  /** This instant plus an ISO 8601 duration ("P3D", "PT1H"), as luxon adds it in the instant's fixed offset. */
  plus(duration: unknown, field: string): Instant {
    return this.shift(duration, field, 1);
  }

  /** This instant minus an ISO 8601 duration. */
  minus(duration: unknown, field: string): Instant {
    return this.shift(duration, field, -1);
  }

  private shift(duration: unknown, field: string, direction: 1 | -1): Instant {
    const length = typeof duration === 'string' ? fixedLengthOf(duration, field) : null;
    if (length !== null) return new Instant(this.ms + direction * length, this.offset);
    const parsed = parseDuration(duration, field);
    const dt = this.toDateTime();
    return Instant.fromDateTime(direction === 1 ? dt.plus(parsed) : dt.minus(parsed));
  }

  /** Text read leniently (a stored value): null when it is no instant with an offset, instead of an error. */
  static tryParse(text: string): Instant | null {
    try {
      return Instant.parse(text, 'instant');
    } catch {
      return null;
    }
  }

  /** The instant India midnight began this instant's India day, in this offset. */
  startOfIndiaDay(): Instant {
    return new Instant(indiaMidnight(indiaDayOf(this.ms)), this.offset);
  }

  isBefore(other: Instant): boolean {
    return this.ms < other.ms;
  }

  isAfter(other: Instant): boolean {
    return this.ms > other.ms;
  }

  /** The same instant (the offset it is written in may differ). */
  equals(other: Instant): boolean {
    return this.ms === other.ms;
  }

  /** Whether two stored times are written alike: the same instant in the same offset (null and undefined alike). */
  static same(a: Instant | null | undefined, b: Instant | null | undefined): boolean {
    if (!a || !b) return (a ?? null) === (b ?? null);
    return a.ms === b.ms && a.offset === b.offset;
  }

  /** ISO 8601 in its own offset, whole seconds, e.g. "2022-12-02T16:00:00+05:30" ("Z" for UTC): every stored form. */
  toISO(): string {
    return (Number.isInteger(this.ms) ? fixedOffsetIso(this.ms, this.offset) : null) ?? luxonIso(this.toDateTime());
  }

  /** The same instant and offset without its sub-second part: the instant its toISO() text names. */
  wholeSecond(): Instant {
    const whole = Math.floor(this.ms / 1000) * 1000;
    return whole === this.ms ? this : new Instant(whole, this.offset);
  }

  /**
   * The stored form: ISO 8601 in its own offset, with milliseconds only when it has any (an event's own time as sent,
   * e.g. "2022-12-02T16:00:00.250+05:30"); toISO()'s text for a whole second. Items, answers and events write this.
   */
  toText(): string {
    return this.ms % 1000 === 0 ? this.toISO() : this.toDateTime().toISO({ suppressMilliseconds: true }) ?? this.toISO();
  }

  /** JSON writes the stored text: an Instant that reaches an answer, an item or an event is in its stored form. */
  toJSON(): string {
    return this.toText();
  }

  toString(): string {
    return this.toText();
  }

  /** A luxon DateTime in its own offset: for the edges that format other forms or count calendar units. */
  toDateTime(): DateTime {
    return DateTime.fromMillis(this.ms, { zone: fixedZone(this.offset) });
  }
}

/** The gateway's form "YYYY-MM-DD HH:MM:SS" in India time (seconds precision: sub-seconds are dropped). */
export function gatewayDateText(at: Instant): string {
  return at.inOffset(INDIA_OFFSET_MINUTES).toISO().slice(0, 19).replace('T', ' ');
}

/** The whole second of `ms` written in `zone`: the instant isoAt's text names (what a record keeps). */
export function wholeSecondAt(ms: number, zone: ZoneLike): Instant {
  return Instant.at(ms, zone).wholeSecond();
}

/** ISO 8601 text of `ms` in `zone`, whole seconds: what Instant.at(ms, zone).toISO() gives. */
export function isoAt(ms: number, zone: ZoneLike): string {
  return Instant.at(ms, zone).toISO();
}

/** The field-named error for text that is not an ISO 8601 time with an offset. */
function notAnInstant(text: unknown, field: string): ValidationError {
  const problem = text === undefined ? 'is missing' : `is ${describe(text)}, not an ISO 8601 time with an offset`;
  return new ValidationError([{ field, problem, expected: INSTANT_EXAMPLE }]);
}

/** Whether text has the shape of an ISO 8601 time with an offset (before the checks of a real date). */
export function looksLikeInstant(text: string): boolean {
  return ISO_WITH_OFFSET.test(text.trim());
}

/** luxon's general ISO parser, for the forms the plain path leaves (no seconds, week dates, hour 24, ...). */
export function generalInstant(text: string, field: string): DateTime {
  const trimmed = text.trim();
  if (!ISO_WITH_OFFSET.test(trimmed)) throw notAnInstant(text, field);
  const dt = DateTime.fromISO(trimmed, { setZone: true });
  if (!dt.isValid) {
    throw new ValidationError([{ field, problem: `is ${describe(text)}, not a real date and time`, expected: INSTANT_EXAMPLE }]);
  }
  if (dt.offset < MIN_OFFSET_MINUTES || dt.offset > MAX_OFFSET_MINUTES) {
    throw new ValidationError([{
      field,
      problem: `is ${describe(text)}, whose offset ${offsetText(dt.offset)} is no UTC offset in use`,
      expected: `an offset from -12:00 to +14:00 (India time is +05:30), e.g. "2022-12-02T16:00:00+05:30"`,
    }]);
  }
  return dt;
}

/** One zone object per fixed offset (minutes east of UTC). */
const fixedZones = new Map<number, Zone>();
export function fixedZone(offset: number): Zone {
  let zone = fixedZones.get(offset);
  if (!zone) {
    zone = FixedOffsetZone.instance(offset);
    fixedZones.set(offset, zone);
  }
  return zone;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The number written in text[at, at + count) in ASCII digits; -1 when any is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The common form "YYYY-MM-DDTHH:MM:SS[.sss](Z|±HH:MM)", read by hand: luxon's general ISO parser costs ~25 µs a
 * call and even a regex and Date.parse are most of a decision's time. Anything else, or a date or time that does not
 * exist (31 Feb, 24:00, 10:60), returns null and takes the general path, which accepts or refuses it as luxon does.
 */
function plainInstant(text: string): Instant | null {
  const n = text.length;
  if (n < 20 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':') return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  let at = 19;
  let millisecond = 0;
  if (text[at] === '.') {
    let count = 0;
    while (count < 3 && at + 1 + count < n && digitsAt(text, at + 1 + count, 1) >= 0) count += 1;
    if (count === 0) return null;
    // ".5" is 500 ms: the digits are a fraction of a second.
    millisecond = digitsAt(text, at + 1, count) * 10 ** (3 - count);
    at += 1 + count;
  }
  let offset: number;
  if (at === n - 1 && text[at] === 'Z') {
    offset = 0;
  } else {
    const sign = text[at] === '+' ? 1 : text[at] === '-' ? -1 : 0;
    if (sign === 0 || at !== n - 6 || text[at + 3] !== ':') return null;
    const offsetHours = digitsAt(text, at + 1, 2);
    const offsetMinutes = digitsAt(text, at + 4, 2);
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return null;
    offset = sign * (offsetHours * 60 + offsetMinutes);
    // An offset no zone uses takes the general path, which refuses it with its reason.
    if (offset < MIN_OFFSET_MINUTES || offset > MAX_OFFSET_MINUTES) return null;
  }
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  const ms = dayNumberOfDate(year, month, day) * DAY_MS + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millisecond;
  return Instant.withOffset(ms, offset);
}

/** Zone names whose meaning follows luxon's mutable settings, so their offset is never remembered. */
const MOVABLE_ZONES = new Set(['default', 'local', 'system']);
const zoneOffsets = new Map<string, number | null>();
const REMEMBERED_LIMIT = 256;

/** Adds to a bounded memo: the values are few in practice (zone names, durations), but they come from input. */
function remember<T>(memo: Map<string, T>, key: string, value: T): T {
  if (memo.size >= REMEMBERED_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

function zoneObject(zone: ZoneLike): Zone {
  const normalized = typeof zone === 'string' ? Info.normalizeZone(zone === GATEWAY_ZONE ? INDIA_TIME : zone) : zone;
  if (!normalized.isValid) throw new RangeError(`unknown time zone ${typeof zone === 'string' ? zone : zone.name}`);
  return normalized;
}

/** The offset in whole minutes of a zone that has only one (India time, UTC, "UTC+5:30"); null for any other zone. */
function fixedOffsetOf(zone: ZoneLike, ms: number): number | null {
  if (typeof zone !== 'string') {
    if (!zone.isUniversal) return null;
    const offset = zone.offset(ms);
    return Number.isInteger(offset) ? offset : null;
  }
  if (zone === GATEWAY_ZONE) return INDIA_OFFSET_MINUTES;
  const known = zoneOffsets.get(zone);
  if (known !== undefined) return known;
  if (MOVABLE_ZONES.has(zone.toLowerCase())) return null;
  const normalized = Info.normalizeZone(zone);
  return remember(zoneOffsets, zone, normalized.isValid ? fixedOffsetOf(normalized, 0) : null);
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** luxon's ISO offset: "Z" for a zero fixed offset, else ±HH:MM. */
export function offsetText(offset: number): string {
  if (offset === 0) return 'Z';
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${two(Math.trunc(abs / 60))}:${two(abs % 60)}`;
}

const four = (n: number): string => (n >= 1000 ? `${n}` : `${n}`.padStart(4, '0'));

/** Exactly luxon's toISO({ suppressMilliseconds: true }) of the whole second, for a fixed offset; null for years it writes in the long form. */
function fixedOffsetIso(ms: number, offset: number): string | null {
  if (!Number.isInteger(offset)) return null;
  const local = Math.floor(ms / 1000) * 1000 + offset * MINUTE_MS;
  const dayNumber = Math.floor(local / DAY_MS);
  const { year, month, day } = dateOfDayNumber(dayNumber);
  if (!(year >= 0 && year <= 9999)) return null;
  const secondOfDay = (local - dayNumber * DAY_MS) / 1000;
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor(secondOfDay / 60) % 60;
  return `${four(year)}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(secondOfDay % 60)}${offsetText(offset)}`;
}

/** luxon's own ISO text of the whole second (long years, fractional milliseconds). */
function luxonIso(dt: DateTime): string {
  const text = dt.startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true });
  if (text === null) throw new RangeError(`cannot format ${dt.toString()}`);
  return text;
}

/** ISO text of a luxon DateTime in `zone`, whole seconds (the luxon path of the formatting above). */
export function isoOfDateTime(dt: DateTime, zone: ZoneLike): string {
  if (dt.isValid && Number.isInteger(dt.toMillis())) {
    const offset = fixedOffsetOf(zone, dt.toMillis());
    const text = offset === null ? null : fixedOffsetIso(dt.toMillis(), offset);
    if (text !== null) return text;
  }
  return luxonIso(dt.setZone(typeof zone === 'string' && zone === GATEWAY_ZONE ? INDIA_TIME : zone));
}

/** A non-negative ISO 8601 duration such as "P3D" or "PT1H". */
export function parseDuration(text: unknown, field: string): Duration {
  const expected = 'an ISO 8601 duration such as "PT1H", "P2D" or "P1DT12H"';
  const duration = typeof text === 'string' ? Duration.fromISO(text.trim()) : null;
  if (!duration || !duration.isValid) {
    throw new ValidationError([{
      field,
      problem: text === undefined ? 'is missing' : `is ${describe(text)}, not an ISO 8601 duration`,
      expected,
    }]);
  }
  if (Object.values(duration.toObject()).some((v) => typeof v === 'number' && v < 0)) {
    throw new ValidationError([{ field, problem: `is ${describe(text)}, a negative duration`, expected: `${expected}, not negative` }]);
  }
  return duration;
}

const fixedLengths = new Map<string, number | null>();

/**
 * The length in milliseconds a duration adds in a fixed-offset zone, where every day is 24 hours; null when it
 * counts whole months or years (their length depends on the date), or is not a whole number of milliseconds. Worked
 * out once per text by luxon itself, so the result is luxon's own arithmetic.
 */
function fixedLengthOf(text: string, field: string): number | null {
  const known = fixedLengths.get(text);
  if (known !== undefined) return known;
  const duration = parseDuration(text, field);
  const calendarRelative = Math.trunc(duration.years) !== 0 || Math.trunc(duration.quarters) !== 0 || Math.trunc(duration.months) !== 0;
  const length = calendarRelative ? null : DateTime.fromMillis(0, { zone: FixedOffsetZone.utcInstance }).plus(duration).toMillis();
  return remember(fixedLengths, text, length !== null && Number.isSafeInteger(length) ? length : null);
}
