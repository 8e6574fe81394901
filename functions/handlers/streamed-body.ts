/**
 * Bodies produced while they are sent (the outcomes CSV): a route returns its chunks as an async iterable; the local
 * API server pipes them with backpressure, and on AWS, where an HTTP API's Lambda integration must return its body
 * whole, the Lambda handler collects them up to Lambda's response limit.
 */
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from './http';
import { describeError } from '../application/errors';
import { json } from './http';

/** Where a streamed result keeps its chunks (a symbol: never serialised as part of a response). */
const BODY_STREAM = Symbol.for('holdback.body-stream');

type StreamedResult = ApiResult & { [BODY_STREAM]?: AsyncIterable<string> };

/** A result whose body is `chunks`, sent as they come (no content-length). */
export function streamedResult(statusCode: number, headers: Record<string, string>, chunks: AsyncIterable<string>): ApiResult {
  const result: StreamedResult = { statusCode, headers, [BODY_STREAM]: chunks };
  return result;
}

export function bodyStreamOf(result: ApiResult): AsyncIterable<string> | undefined {
  return (result as StreamedResult)[BODY_STREAM];
}

/**
 * Lambda's limit on a synchronous response is 6 MB (the payload, JSON envelope included); a body a little under it
 * leaves room for the envelope and its escaping.
 */
const LAMBDA_BODY_LIMIT_BYTES = 5_500_000;

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/**
 * The Lambda form of the API handler: a streamed body is collected into `body`, up to `limitBytes`. A larger one is
 * answered 413 saying what to do instead (JSON pages with `cursor`, or a narrower `from`/`to`), since API Gateway's
 * HTTP API cannot stream a Lambda's answer.
 */
export function collectStreamedBodies(handler: Handler, limitBytes = LAMBDA_BODY_LIMIT_BYTES): Handler {
  return async (event, context) => {
    const result = await handler(event, context);
    const chunks = bodyStreamOf(result);
    if (!chunks) return result;
    const parts: string[] = [];
    let size = 0;
    try {
      for await (const chunk of chunks) {
        size += Buffer.byteLength(chunk, 'utf8');
        if (size > limitBytes) {
          return json(413, {
            error: {
              code: 'response_too_large',
              message: `the answer is larger than the ${limitBytes} bytes an AWS Lambda response may carry; page through it with format=json and cursor, or ask for a narrower from/to`,
            },
          });
        }
        parts.push(chunk);
      }
    } catch (error) {
      // Past the route's error handling (the body is produced after it returned): answered here in the same shape.
      const requestId = event.requestContext?.requestId ?? null;
      console.error(JSON.stringify({ level: 'error', message: 'streamed body failed', path: event.rawPath, requestId, error: describeError(error) }));
      return json(500, { error: { code: 'internal_error', message: `Holdback could not complete the answer; it is logged${requestId ? ` as request ${requestId}` : ''}. Try again later.` } });
    }
    const { [BODY_STREAM]: _stream, ...plain } = result as StreamedResult;
    return { ...plain, body: parts.join('') };
  };
}
