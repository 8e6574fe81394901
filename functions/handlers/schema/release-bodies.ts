/**
 * The bodies of money now or not at all (contract 6): hold and unhold, a manual release, a retry. Each is declared once
 * here, read by its route before the use case runs (today's refusals word for word) and documented from the same object.
 */
import { objectBody, textField, flagField } from '../../application/body-schema';
import { ValidationError, instantBoundsIssue } from '../../domain/errors';
import { parseEligibilityInput } from '../../domain/dates';
import { DEFAULT_HOLD_SOURCE, isHoldSource } from '../../domain/hold-sources';
import { HOLD_SOURCES, type HoldSource } from '../../domain/types';
import { ref } from './openapi-parts';

/** The longest actor or reason a change keeps. */
const TEXT_LIMIT = 500;

/** `actor` and `reason`, both required, refused with `example` as what to send. */
function actorAndReason(example: string) {
  const rule = { limit: TEXT_LIMIT, expected: `who asks and why, e.g. ${example}`, required: true, absent: null, cut: 60 };
  return { actor: textField(rule), reason: textField(rule) };
}

const HOLD_EXAMPLE = '{"actor": "risk@example.com", "reason": "fraud review", "source": "risk"}';
const HOLD_SOURCE = {
  schema: { ...ref('HoldSource'), description: 'Default finance. Unhold: the same source as the hold or a stronger one, else 409 hold_source.' },
  read: (value: unknown, field: string): HoldSource | undefined => {
    if (value === undefined || isHoldSource(value)) return value;
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(value)?.slice(0, 60)}, not a hold source`, expected: `one of ${HOLD_SOURCES.join(', ')} (strongest first), or leave it out for "${DEFAULT_HOLD_SOURCE}"` }]);
  },
};

/** POST /vendors/{vendorId}/hold and /unhold: who and why, then (once they are right) the source. */
function holdBody(reason: string) {
  return objectBody({
    fields: actorAndReason(HOLD_EXAMPLE),
    then: { source: HOLD_SOURCE },
    example: { actor: 'risk@example.com', reason, source: 'risk' },
    hint: '{"actor": "risk@example.com", "reason": "fraud review"}',
    notObject: `a JSON object, e.g. ${HOLD_EXAMPLE}`,
    unknownMember: 'only actor, reason, source',
  });
}
export const HOLD_BODY = holdBody('fraud review');
export const UNHOLD_BODY = holdBody('review cleared');

const RELEASE_EXAMPLE = '{"actor": "finance@example.com", "reason": "goods received", "at": "2022-12-06T09:00:00+05:30"}';

/** POST /orders/{orderId}/vendors/{vendorId}/release: who and why, then when, whether over a hold, whether a past `at` is meant. */
export const RELEASE_BODY = objectBody({
  fields: actorAndReason(RELEASE_EXAMPLE),
  then: {
    at: {
      schema: { type: 'string', description: "Eligibility to send (India time \"YYYY-MM-DD HH:MM:SS\" or ISO 8601 with an offset), sent releaseLead before it; absent: as soon as the gateway accepts. Refused (400 naming at) when it is after the release's max eligibility or before its transaction time, and when it has passed unless confirmPast is true." },
      // Read as sent (the approval of a controlled release keeps the request as asked); the use case takes its instant.
      read: (value: unknown, field: string): string | null | undefined => {
        if (value === undefined || value === null) return value;
        parseEligibilityInput(value, field);
        return value as string;
      },
    },
    override: flagField('true to release a HELD release despite its hold', { description: 'Required to release a HELD release.' }),
    confirmPast: flagField('true to send an "at" that has passed with the next minute the gateway accepts', { default: false, description: 'true: an at that has passed is meant; it is sent with the next minute the gateway accepts. Without it such an at is refused.' }),
  },
  check: ({ at }, issues) => {
    const bounds = typeof at === 'string' ? instantBoundsIssue(parseEligibilityInput(at, 'at'), 'at', null) : null;
    if (bounds) issues.push(bounds);
  },
  example: { actor: 'finance@example.com', reason: 'vendor in hardship' },
  hint: RELEASE_EXAMPLE,
  notObject: `a JSON object, e.g. ${RELEASE_EXAMPLE}`,
  unknownMember: 'only actor, reason, at, override, confirmPast',
});

const RETRY_EXAMPLE = '{"actor": "ops@example.com", "reason": "gateway recovered"}';

/** POST /orders/{orderId}/vendors/{vendorId}/retry: who and why. */
export const RETRY_BODY = objectBody({
  fields: actorAndReason(RETRY_EXAMPLE),
  example: { actor: 'ops@example.com', reason: 'gateway recovered' },
  notObject: `a JSON object, e.g. ${RETRY_EXAMPLE}`,
  unknownMember: 'only actor, reason',
});
