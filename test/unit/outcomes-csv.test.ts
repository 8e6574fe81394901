/** CSV cells of the outcomes export (RFC 4180, formula injection) and the Lambda form of a streamed body. */
import type { Context } from 'aws-lambda';
import { OUTCOME_CSV_COLUMNS, quoted, text } from '../../functions/application/outcome-rows';
import { collectStreamedBodies, streamedResult } from '../../functions/handlers/streamed-body';
import type { ApiEvent } from '../../functions/handlers/http';

describe('CSV cells', () => {
  test('text that a spreadsheet would run as a formula gets a leading quote: = + - @ tab and carriage return', () => {
    expect(['=SUM(A1)', '+1', '-v-dash', '@cmd', '\tx', '\rx'].map(text)).toEqual(["'=SUM(A1)", "'+1", "'-v-dash", "'@cmd", "'\tx", "'\rx"]);
    expect(['v-now', 'Order ID does not exist', '', 'a=b'].map(text)).toEqual(['v-now', 'Order ID does not exist', '', 'a=b']);
  });

  test('RFC 4180: a cell with a comma, a quote, CR or LF is quoted with its quotes doubled; others stay bare', () => {
    expect(quoted('Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date')).toBe('Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date');
    expect(quoted('a,b')).toBe('"a,b"');
    expect(quoted('say "no"')).toBe('"say ""no"""');
    expect(quoted('two\r\nlines')).toBe('"two\r\nlines"');
    // Escaped, then quoted: the quote stays inside the cell.
    expect(quoted(text('=HYPERLINK("x")'))).toBe('"\'=HYPERLINK(""x"")"');
  });

  test('the 21 columns of contract 6.1, in order: the auditor\'s five after the first sixteen', () => {
    expect(OUTCOME_CSV_COLUMNS.join(',')).toBe('order_id,vendor_id,amount,currency,state,policy_version,schedule_option,transaction_time,max_eligibility,target_eligibility,applied_eligibility,predicted_settlement,settled_at,attempts,last_gateway_status,last_gateway_message,reason,hold_reason,manual_actor,manual_reason,settlement_mismatch_minutes');
  });
});

describe('a streamed body on AWS (collected for an HTTP API Lambda integration)', () => {
  async function* chunks(count: number, size: number): AsyncIterable<string> {
    for (let i = 0; i < count; i += 1) yield 'x'.repeat(size);
  }
  const event = {} as ApiEvent;
  const context = {} as Context;

  test('under the limit: the chunks become the body, the stream itself is not part of the answer', async () => {
    const handler = collectStreamedBodies(async () => streamedResult(200, { 'content-type': 'text/csv' }, chunks(3, 10)), 100);
    const result = await handler(event, context);
    expect(result).toEqual({ statusCode: 200, headers: { 'content-type': 'text/csv' }, body: 'x'.repeat(30) });
  });

  test('over the limit: 413 saying what to use instead, and the reading stops', async () => {
    let produced = 0;
    async function* endless(): AsyncIterable<string> {
      for (;;) {
        produced += 1;
        yield 'x'.repeat(10);
      }
    }
    const handler = collectStreamedBodies(async () => streamedResult(200, {}, endless()), 100);
    const result = await handler(event, context);
    expect(result.statusCode).toBe(413);
    expect(JSON.parse(result.body as string).error).toEqual({ code: 'response_too_large', message: expect.stringMatching(/format=json and cursor, or ask for a narrower from\/to/) });
    expect(produced).toBe(11);
  });

  test('a stream that fails midway: 500 naming the request id to look up, the cause only in the log', async () => {
    async function* failing(): AsyncIterable<string> {
      yield 'order_id\r\n';
      throw new Error('ProvisionedThroughputExceededException on holdback-orders');
    }
    const logged: string[] = [];
    const log = jest.spyOn(console, 'error').mockImplementation((line: string) => { logged.push(line); });
    try {
      const handler = collectStreamedBodies(async () => streamedResult(200, {}, failing()), 100);
      const result = await handler({ rawPath: '/outcomes', requestContext: { requestId: 'req-42' } } as ApiEvent, context);
      expect(result.statusCode).toBe(500);
      expect(JSON.parse(result.body as string).error).toEqual({ code: 'internal_error', message: expect.stringContaining('logged as request req-42') });
      expect(result.body).not.toContain('ProvisionedThroughput');
    } finally {
      log.mockRestore();
    }
    expect(logged.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ requestId: 'req-42', path: '/outcomes', error: expect.stringContaining('ProvisionedThroughputExceededException') })]);
  });

  test('an answer that is not streamed passes as it is', async () => {
    const plain = { statusCode: 200, body: '{}' };
    expect(await collectStreamedBodies(async () => plain)(event, context)).toBe(plain);
  });
});
