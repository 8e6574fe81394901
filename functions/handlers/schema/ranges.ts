/** The time-range parameters several routes share (README "Bounds"): their text is read by the use case, which names a bad one. */
import { text } from './params';

/** Every date Holdback reads lies in [2000-01-01, 2100-01-01), with an offset from -12:00 to +14:00 (README "Bounds"). */
const DATE_BOUNDS = 'From 2000-01-01 to before 2100-01-01; an offset from -12:00 to +14:00; outside, or to before from: 400 naming the field.';
export const RANGE_FROM = text(`First India-time day (YYYY-MM-DD: from its start) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`);
export const RANGE_TO = text(`Last India-time day (YYYY-MM-DD: to its end) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`);
/** The forecast's range: India-time days only. */
export const DAY_FROM = text('First India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31; default today.', { type: 'string', format: 'date' });
export const DAY_TO = text('Last India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31, not before from; default 30 days after from; at most 366 days in all.', { type: 'string', format: 'date' });
