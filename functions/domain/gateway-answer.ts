/** What an answer of the gateway's eligibility PUT means for Holdback (gateway-facts section 1). */
import type { Instant } from './instant';
import type { AnswerClass, Attempt, GatewayAnswer } from './types';

interface DocumentedAnswer {
  /** A stable lowercase part of the message; documentation versions differ in wording around it. */
  fragment: string;
  classify: (message: string) => AnswerClass;
}

// Order matters only in that every fragment is specific enough not to match another documented message.
const DOCUMENTED: DocumentedAnswer[] = [
  { fragment: 'deferred settlement is not enabled', classify: (m) => ({ kind: 'terminal', reason: m }) },
  // The order may not be synced to the settlement side yet: retried within the settings' retryBudget.
  { fragment: 'order id does not exist', classify: (m) => ({ kind: 'retryable', reason: m, budgeted: true }) },
  { fragment: 'vendor id does not exist', classify: (m) => ({ kind: 'terminal', reason: m }) },
  { fragment: 'already been settled', classify: (m) => ({ kind: 'terminal', reason: m }) },
  { fragment: 'settlement for the order is in progress', classify: (m) => ({ kind: 'retryable', reason: m }) },
  // "max_eligibity_date" is the gateway's verbatim spelling; match before it so a corrected spelling still matches.
  { fragment: 'cannot be beyond max_eligib', classify: (m) => ({ kind: 'config_drift', reason: m }) },
  { fragment: 'is in the past', classify: (m) => ({ kind: 'retryable', reason: m, recompute: true }) },
];

const APPLIED_FRAGMENT = 'updated vendor settlement eligibility date';

/** The message without surrounding space or a trailing period, for reasons and matching. */
function cleanMessage(message: string): string {
  return (message ?? '').trim().replace(/\.+$/, '');
}

export function classifyAnswer(answer: GatewayAnswer): AnswerClass {
  switch (answer.kind) {
    case 'timeout':
      return { kind: 'retryable', reason: `timeout: ${answer.message}` };
    case 'network':
      return { kind: 'retryable', reason: `network error: ${answer.message}` };
    case 'throttled':
      return { kind: 'retryable', reason: 'throttled by the client-side rate limit', retryAfterSeconds: answer.retryAfterSeconds };
    case 'response':
      return classifyResponse(answer);
  }
}

function classifyResponse(answer: Extract<GatewayAnswer, { kind: 'response' }>): AnswerClass {
  const message = cleanMessage(answer.message);
  const lower = message.toLowerCase();
  const status = (answer.status ?? '').toUpperCase();
  if (answer.httpStatus === 429) {
    return { kind: 'retryable', reason: `rate limited (HTTP 429): ${message || 'too many requests'}`, retryAfterSeconds: answer.retryAfterSeconds };
  }
  if (answer.httpStatus >= 500) {
    return { kind: 'retryable', reason: `gateway error (HTTP ${answer.httpStatus}): ${message || 'no message'}` };
  }
  // The HTTP status may or may not mirror the subCode (undocumented): the body decides.
  if (status === 'OK' && (answer.subCode === '200' || lower.includes(APPLIED_FRAGMENT))) return { kind: 'applied' };
  if (status !== 'OK') {
    const documented = DOCUMENTED.find((d) => lower.includes(d.fragment));
    if (documented) return documented.classify(message);
  }
  if (answer.httpStatus >= 200 && answer.httpStatus < 300 && status === 'OK') return { kind: 'applied' };
  return { kind: 'terminal', reason: `gateway refused (HTTP ${answer.httpStatus}${answer.subCode ? `, subCode ${answer.subCode}` : ''}): ${message || 'no message'}` };
}

/** The outcome's record of one call: what was sent, when, and what came back (transport failures by label). */
export function attemptOf(answer: GatewayAnswer, request: string, at: Instant): Attempt {
  switch (answer.kind) {
    case 'response':
      return { at, request, httpStatus: answer.httpStatus, status: answer.status, subCode: answer.subCode, message: answer.message };
    case 'timeout':
      return { at, request, httpStatus: null, status: 'TIMEOUT', subCode: null, message: answer.message };
    case 'network':
      return { at, request, httpStatus: null, status: 'NETWORK', subCode: null, message: answer.message };
    case 'throttled':
      return { at, request, httpStatus: null, status: 'RATE_LIMITED', subCode: null, message: `throttled by the client for ${answer.retryAfterSeconds}s` };
  }
}
