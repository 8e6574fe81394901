/** Errors the use cases raise for callers (the API maps each to one HTTP status); validation errors come from the domain. */

/** The thing asked for does not exist (an unknown order...). */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** A request whose origin could not be proven (a webhook with a missing or wrong signature). */
export class UnauthorizedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnauthorizedError';
  }
}

/**
 * The request conflicts with the state it relies on (HTTP 409); `code` is the contract's `error.code`, e.g.
 * `preview_stale`. (A stale version is a VersionConflictError.)
 */
export class ConflictError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** The caller may not do this (HTTP 403): an actor naming someone else, a requester approving their own change. */
export class ForbiddenError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

/**
 * The change needs a second person (contract 6.4 four eyes): nothing was changed, the request is kept as a pending
 * approval, and the API answers `202 {approval}`.
 */
export class ApprovalRequired extends Error {
  constructor(readonly approval: unknown) {
    super('this change needs a second person: it is kept as a pending approval');
    this.name = 'ApprovalRequired';
  }
}

/** An error as one log line: name and message, never a stack with request data. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
