/** Specification of how the eligibility PUT's answers are read (gateway-facts section 1's table). */
import { classifyAnswer } from '../../../functions/domain/gateway-answer';
import type { GatewayAnswer } from '../../../functions/domain/types';

const error = (message: string, httpStatus = 400): GatewayAnswer => ({ kind: 'response', httpStatus, status: 'ERROR', subCode: '400', message });

describe('classifyAnswer: the eight documented answers, with and without a trailing period', () => {
  const table: [string, object][] = [
    ['Deferred settlement is not enabled for merchant', { kind: 'terminal', reason: 'Deferred settlement is not enabled for merchant' }],
    ['Order ID does not exist', { kind: 'retryable', reason: 'Order ID does not exist', budgeted: true }],
    ['Vendor ID does not exist', { kind: 'terminal', reason: 'Vendor ID does not exist' }],
    ['Order has already been settled', { kind: 'terminal', reason: 'Order has already been settled' }],
    ['Settlement for the order is in progress', { kind: 'retryable', reason: 'Settlement for the order is in progress' }],
    ['Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date', {
      kind: 'config_drift', reason: 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date',
    }],
    ['Eligibility time specified is in the past. Specify a new time', {
      kind: 'retryable', reason: 'Eligibility time specified is in the past. Specify a new time', recompute: true,
    }],
  ];

  it('applied: status OK, subCode 200, "Updated vendor settlement eligibility date"', () => {
    for (const message of ['Updated vendor settlement eligibility date', 'Updated vendor settlement eligibility date.']) {
      expect(classifyAnswer({ kind: 'response', httpStatus: 200, status: 'OK', subCode: '200', message })).toEqual({ kind: 'applied' });
    }
  });

  it.each(table)('"%s"', (message, expected) => {
    expect(classifyAnswer(error(message))).toEqual(expected);
    expect(classifyAnswer(error(`${message}.`))).toEqual(expected);
    // The HTTP status may not mirror the subCode: the body decides.
    expect(classifyAnswer(error(message, 200))).toEqual(expected);
    expect(classifyAnswer(error(message.toUpperCase())).kind).toBe((expected as { kind: string }).kind);
  });
});

describe('classifyAnswer: transport and unknown answers', () => {
  it('HTTP 429 is retryable after the gateway\'s x-ratelimit-retry seconds', () => {
    expect(classifyAnswer({ kind: 'response', httpStatus: 429, status: 'RATE_LIMITED', subCode: '429', message: 'Too many requests', retryAfterSeconds: 17 }))
      .toEqual({ kind: 'retryable', reason: 'rate limited (HTTP 429): Too many requests', retryAfterSeconds: 17 });
  });

  it('5xx, timeouts, network errors and the client-side throttle are retryable', () => {
    expect(classifyAnswer({ kind: 'response', httpStatus: 502, status: 'ERROR', subCode: '', message: 'bad gateway' }))
      .toEqual({ kind: 'retryable', reason: 'gateway error (HTTP 502): bad gateway' });
    expect(classifyAnswer({ kind: 'timeout', message: 'no answer within 10 s' })).toEqual({ kind: 'retryable', reason: 'timeout: no answer within 10 s' });
    expect(classifyAnswer({ kind: 'network', message: 'ECONNRESET' })).toEqual({ kind: 'retryable', reason: 'network error: ECONNRESET' });
    expect(classifyAnswer({ kind: 'throttled', retryAfterSeconds: 5 })).toMatchObject({ kind: 'retryable', retryAfterSeconds: 5 });
  });

  it('an unknown 4xx is terminal and keeps the gateway\'s message', () => {
    expect(classifyAnswer({ kind: 'response', httpStatus: 401, status: 'ERROR', subCode: '401', message: 'authentication Failed' }))
      .toEqual({ kind: 'terminal', reason: 'gateway refused (HTTP 401, subCode 401): authentication Failed' });
    expect(classifyAnswer(error('Something new went wrong')).kind).toBe('terminal');
  });
});
