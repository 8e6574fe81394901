/** Instants, the gateway's India-time date forms and ISO durations: parsing with field-named errors, and formatting. */
import { DateTime, Duration, FixedOffsetZone, type Zone } from 'luxon';
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

/** ISO 8601 with an offset or Z; the offset given is kept. A time without an offset is ambiguous, so it is refused. */
export function parseInstant(text: unknown, field: string): DateTime {
  if (typeof text !== 'string' || !ISO_WITH_OFFSET.test(text.trim())) {
    const problem = text === undefined ? 'is missing' : `is ${describe(text)}, not an ISO 8601 time with an offset`;
    throw new ValidationError([{ field, problem, expected: INSTANT_EXAMPLE }]);
  }
  const dt = fastInstant(text.trim()) ?? DateTime.fromISO(text.trim(), { setZone: true });
  if (!dt.isValid) {
    throw new ValidationError([{ field, problem: `is ${describe(text)}, not a real date and time`, expected: INSTANT_EXAMPLE }]);
  }
  return dt;
}

const PLAIN_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The common form "YYYY-MM-DDTHH:MM:SS[.sss](Z|±HH:MM)" without luxon's general ISO parser, which costs ~25 µs a
 * call on every event and outcome. Anything else (or an impossible date) returns null and takes the general path.
 */
function fastInstant(text: string): DateTime | null {
  const m = PLAIN_INSTANT.exec(text);
  if (!m) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  const offset = m[7] === 'Z' ? 0 : (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  const dt = DateTime.fromMillis(ms, { zone: FixedOffsetZone.instance(offset) });
  // Date.parse rolls impossible dates over (31 Feb); luxon's parser refuses them, so must this path.
  return dt.day === Number(m[3]) && dt.month === Number(m[2]) && dt.hour === Number(m[4]) ? dt : null;
}

/** ISO 8601 with the zone's offset, whole seconds, e.g. "2022-12-02T16:00:00+05:30". */
export function formatInstant(dt: DateTime, zone: string | Zone): string {
  const text = dt.setZone(computeZone(zone)).startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true });
  if (text === null) throw new RangeError(`cannot format ${dt.toString()} in zone ${zone}`);
  return text;
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
  const dt = DateTime.fromObject(
    { year: Number(y), month: Number(mo), day: Number(d), hour, minute: Number(mi), second: Number(s) },
    { zone: GATEWAY_ZONE },
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
