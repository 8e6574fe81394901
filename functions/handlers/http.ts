/** HTTP plumbing of the API handler: JSON responses, request bodies, and errors mapped to statuses without leaking internals. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type middy from '@middy/core';
import { ApprovalRequired, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, describeError } from '../application/errors';
import { actorChecked, callerOf } from './schema/caller';
import { VersionConflictError, type Logger } from '../application/ports';
import { StoredDataDefect, ValidationError, assertNesting } from '../domain/errors';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** An error that already knows its status and code (unknown route, wrong method). */
export class HttpError extends Error {
  constructor(readonly statusCode: number, readonly code: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
  }
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

/** The body exactly as sent: API Gateway base64-encodes bodies it does not treat as text. */
export function rawBodyOf(event: ApiEvent): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** `takesActor` false: the route's body declares no actor member (schema/caller.ts actorChecked fills none in). */
export function jsonBodyOf(event: ApiEvent, example: string, takesActor = true): unknown {
  const raw = rawBodyOf(event);
  if (raw.length === 0) throw new ValidationError([{ field: 'body', problem: 'is empty', expected: `a JSON object, e.g. ${example}` }]);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError([{ field: 'body', problem: 'is not valid JSON', expected: `a JSON object, e.g. ${example}` }]);
  }
  // Before any use case walks it (messages quote values with JSON.stringify, which recurses).
  assertNesting(body, 'body', example);
  // On AWS the body's actor must name the signed caller (absent: the caller's name is filled in); see schema/caller.ts.
  return actorChecked(body, callerOf(event), takesActor);
}

/** A path parameter as text, percent-decoded (ids are then checked by the use case). */
export function pathParameter(event: ApiEvent, name: string): string {
  const raw = event.pathParameters?.[name] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError([{ field: name, problem: `is ${JSON.stringify(raw)}, not valid percent-encoding`, expected: 'an id of A-Z, a-z, 0-9, "_" and "-"' }]);
  }
}

/** What each error a user can cause means in HTTP; anything else is a 500 whose details stay in the log. */
function errorResponse(error: unknown, event: ApiEvent, logger: Pick<Logger, 'error'>): ApiResult {
  if (error instanceof ValidationError) {
    return json(400, { error: { code: 'validation_error', message: error.message, issues: error.issues } });
  }
  if (error instanceof HttpError) return json(error.statusCode, { error: { code: error.code, message: error.message } }, error.headers);
  if (error instanceof ApprovalRequired) return json(202, { approval: error.approval });
  if (error instanceof ForbiddenError) return json(403, { error: { code: error.code, message: error.message } });
  if (error instanceof NotFoundError) return json(404, { error: { code: 'not_found', message: error.message } });
  if (error instanceof UnauthorizedError) return json(401, { error: { code: 'unauthorized', message: error.message } });
  if (error instanceof VersionConflictError) return json(409, { error: { code: 'version_conflict', message: error.message } });
  if (error instanceof ConflictError) return json(409, { error: { code: error.code, message: error.message } });
  const requestId = event.requestContext?.requestId ?? null;
  if (error instanceof StoredDataDefect) {
    // Names the record (ids only, never a secret): an operator must repair it; no total is guessed around it.
    logger.error('stored data defect', { path: event.rawPath, requestId, error: describeError(error) });
    return json(500, { error: { code: 'stored_data_defect', message: `${error.message}; repair the stored item (request ${requestId ?? 'unknown'})` } });
  }
  logger.error('request failed', { method: event.requestContext?.http?.method, path: event.rawPath, requestId, error: describeError(error) });
  return json(500, {
    error: { code: 'internal_error', message: `Holdback could not complete the request; it is logged${requestId ? ` as request ${requestId}` : ''}. Try again later.` },
  });
}

/** Middy middleware answering every thrown error with the JSON error shape. */
export function jsonErrors(getLogger: () => Promise<Pick<Logger, 'error'>>): middy.MiddlewareObj<ApiEvent, ApiResult> {
  return {
    onError: async (request) => {
      const logger = await getLogger().catch(() => consoleLogger);
      request.response = errorResponse(request.error, request.event, logger);
    },
  };
}

/** Used only when the runtime's own logger could not be built (a configuration error at cold start). */
const consoleLogger: Pick<Logger, 'error'> = {
  error: (message, fields) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
};
