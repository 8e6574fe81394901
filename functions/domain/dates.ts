/** Instants, the gateway's India-time date forms and ISO durations: parsing with field-named errors, and formatting. */
import { DateTime, Duration, FixedOffsetZone, Info, type Zone } from 'luxon';
import { DAY_MS, MINUTE_MS, dateOfDayNumber, dayNumberOfDate } from '../../kit/civil-days';
import { ValidationError } from './errors';

/** The gateway's wall clock (UTC+05:30, no daylight saving). */
export const GATEWAY_ZONE = 'Asia/Kolkata';
/**
 * India time as a fixed +05:30 offset: India has kept one offset since 1945 with no daylight saving, so arithmetic in
 * it is exact, and luxon does it without asking Intl for the offset of every instant (that made predictions ~100x slower).
 */
export const INDIA_TIME: Zone = FixedOffsetZone.instance(330);

/** The zone to compute in: the IANA name of India time becomes the fixed offset above. */
function computeZone(zone: string | Zone): string | Zone {
  return zone === GATEWAY_ZONE ? INDIA_TIME : zone;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;
const GATEWAY_FORM = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\s?([AP]M))?$/i;
const INSTANT_EXAMPLE = 'an ISO 8601 time with an offset, e.g. "2022-12-02T16:00:00+05:30"';

function describe(text: unknown): string {
  if (typeof text === 'string') return `"${text.length > 60 ? `${text.slice(0, 60)}...` : text}"`;
  if (text === undefined) return 'missing';
  return `a ${text === null ? 'null' : typeof text}`;
}

/**
 * An instant as epoch milliseconds and the zone it was written in. Decisions run for every event, send and preview,
 * and luxon builds a whole calendar object per step (parse, plus, setZone, format), so the hot paths compute on this.
 */
export interface Moment {
  ms: number;
  zone: Zone;
}

export function momentOf(dt: DateTime): Moment {
  return { ms: dt.toMillis(), zone: dt.zone };
}

/** The moment as a luxon DateTime in its own zone. */
export function dateTimeOf(moment: Moment): DateTime {
  return DateTime.fromMillis(moment.ms, { zone: moment.zone });
}

/** The field-named error for text that is not an ISO 8601 time with an offset. */
function notAnInstant(text: unknown, field: string): ValidationError {
  const problem = text === undefined ? 'is missing' : `is ${describe(text)}, not an ISO 8601 time with an offset`;
  return new ValidationError([{ field, problem, expected: INSTANT_EXAMPLE }]);
}

/**
 * The UTC offsets (minutes) that exist: from -12:00 (Baker Island) to +14:00 (Kiribati). ISO 8601's syntax allows
 * "+99:00", which is a typing error and would move the instant by days.
 */
export const MIN_OFFSET_MINUTES = -12 * 60;
export const MAX_OFFSET_MINUTES = 14 * 60;

/** luxon's general ISO parser, for the forms the plain path leaves (no seconds, week dates, hour 24, ...). */
function generalInstant(text: string, field: string): DateTime {
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

/** ISO 8601 with an offset or Z; the offset given is kept. A time without an offset is ambiguous, so it is refused. */
export function parseInstant(text: unknown, field: string): DateTime {
  if (typeof text !== 'string') throw notAnInstant(text, field);
  const plain = plainMoment(text.trim());
  return plain ? dateTimeOf(plain) : generalInstant(text, field);
}

/** parseInstant as a Moment (same checks, same errors). */
export function parseMoment(text: unknown, field: string): Moment {
  if (typeof text !== 'string') throw notAnInstant(text, field);
  return plainMoment(text.trim()) ?? momentOf(generalInstant(text, field));
}

/** One zone object per fixed offset (minutes east of UTC). */
const fixedZones = new Map<number, Zone>();
function fixedZone(offset: number): Zone {
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
function plainMoment(text: string): Moment | null {
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
  return { ms, zone: fixedZone(offset) };
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

/** The offset in whole minutes of a zone that has only one (India time, UTC, "UTC+5:30"); null for any other zone. */
function fixedOffsetOf(zone: string | Zone, ms: number): number | null {
  if (typeof zone !== 'string') {
    if (!zone.isUniversal) return null;
    const offset = zone.offset(ms);
    return Number.isInteger(offset) ? offset : null;
  }
  if (zone === GATEWAY_ZONE) return INDIA_TIME.offset(ms);
  const known = zoneOffsets.get(zone);
  if (known !== undefined) return known;
  if (MOVABLE_ZONES.has(zone.toLowerCase())) return null;
  const normalized = Info.normalizeZone(zone);
  return remember(zoneOffsets, zone, normalized.isValid ? fixedOffsetOf(normalized, 0) : null);
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** luxon's ISO offset: "Z" for a zero fixed offset, else ±HH:MM. */
function offsetText(offset: number): string {
  if (offset === 0) return 'Z';
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${two(Math.trunc(abs / 60))}:${two(abs % 60)}`;
}

const four = (n: number): string => (n >= 1000 ? `${n}` : `${n}`.padStart(4, '0'));

/** Exactly luxon's toISO({ suppressMilliseconds: true }) of the whole second, for a fixed offset; null for years it writes in the long form. */
function fixedOffsetIso(ms: number, offset: number): string | null {
  const local = Math.floor(ms / 1000) * 1000 + offset * MINUTE_MS;
  const dayNumber = Math.floor(local / DAY_MS);
  const { year, month, day } = dateOfDayNumber(dayNumber);
  if (!(year >= 0 && year <= 9999)) return null;
  const secondOfDay = (local - dayNumber * DAY_MS) / 1000;
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor(secondOfDay / 60) % 60;
  return `${four(year)}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(secondOfDay % 60)}${offsetText(offset)}`;
}

/** ISO 8601 with the zone's offset, whole seconds, e.g. "2022-12-02T16:00:00+05:30". */
export function formatInstant(dt: DateTime, zone: string | Zone): string {
  if (dt.isValid) {
    const text = isoWithoutLuxon(dt.toMillis(), zone);
    if (text !== null) return text;
  }
  const text = dt.setZone(computeZone(zone)).startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true });
  if (text === null) throw new RangeError(`cannot format ${dt.toString()} in zone ${zone}`);
  return text;
}

/** formatInstant of an instant in epoch milliseconds. */
export function formatEpochMs(ms: number, zone: string | Zone): string {
  return isoWithoutLuxon(ms, zone) ?? formatInstant(DateTime.fromMillis(ms), zone);
}

/** Without luxon when the zone has a fixed offset (India time, UTC); null when luxon must do it. */
function isoWithoutLuxon(ms: number, zone: string | Zone): string | null {
  // Whole milliseconds only: luxon truncates a fraction toward zero (Date does), which differs before 1970.
  if (!Number.isInteger(ms)) return null;
  const offset = fixedOffsetOf(zone, ms);
  return offset === null ? null : fixedOffsetIso(ms, offset);
}

/** The gateway's form "YYYY-MM-DD HH:MM:SS" in India time (seconds precision: sub-seconds are dropped). */
export function formatGatewayDate(dt: DateTime): string {
  return dt.setZone(INDIA_TIME).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD hh:mm:ss AM|PM", read as India time; null when it is neither. */
export function parseGatewayDate(text: string): DateTime | null {
  const m = GATEWAY_FORM.exec(typeof text === 'string' ? text.trim() : '');
  if (!m) return null;
  const [, y, mo, d, h, mi, s, half] = m;
  let hour = Number(h);
  if (half) {
    if (hour < 1 || hour > 12) return null;
    const pm = half.toUpperCase() === 'PM';
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  // India time as its fixed offset: the same instants as the IANA zone, without asking Intl (a client checks every PUT).
  const dt = DateTime.fromObject(
    { year: Number(y), month: Number(mo), day: Number(d), hour, minute: Number(mi), second: Number(s) },
    { zone: INDIA_TIME },
  );
  return dt.isValid ? dt : null;
}

/** An eligibility as a person types it: either gateway form (India time) or ISO 8601 with an offset. */
export function parseEligibilityInput(text: unknown, field: string): DateTime {
  if (typeof text === 'string') {
    const gateway = parseGatewayDate(text);
    if (gateway) return gateway;
    if (ISO_WITH_OFFSET.test(text.trim())) return parseInstant(text, field);
  }
  throw new ValidationError([{
    field,
    problem: text === undefined ? 'is missing' : `is ${describe(text)}, not a date and time`,
    expected: '"YYYY-MM-DD HH:MM:SS" (India time), "YYYY-MM-DD hh:mm:ss AM|PM" or ISO 8601 with an offset, e.g. "2022-12-06 09:00:00" or "2022-12-06T09:00:00+05:30"',
  }]);
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

/** The moment plus (direction 1) or minus (-1) an ISO 8601 duration, as luxon's plus/minus in the moment's zone. */
export function shiftMoment(moment: Moment, duration: unknown, field: string, direction: 1 | -1): Moment {
  const length = moment.zone.isUniversal && typeof duration === 'string' ? fixedLengthOf(duration, field) : null;
  if (length !== null) return { ms: moment.ms + direction * length, zone: moment.zone };
  const parsed = parseDuration(duration, field);
  const dt = dateTimeOf(moment);
  return momentOf(direction === 1 ? dt.plus(parsed) : dt.minus(parsed));
}
