/** The error a caller gets for bad input: every issue names the field, what was wrong and what to send instead. */

export interface ValidationIssue {
  field: string;
  problem: string;
  expected: string;
}

/** One issue as a sentence (error messages, the reasons of a rejected event). */
export function issueText(issue: ValidationIssue): string {
  return `${issue.field}: ${issue.problem}; send ${issue.expected}`;
}

/** Whether input is a JSON object (not null, not a list): what every body and event detail must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `read()`, or undefined with its issues added to `issues` when it throws a ValidationError: every bad field named at once. */
export function collectIssues<T>(issues: ValidationIssue[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues);
    return undefined;
  }
}

export class ValidationError extends Error {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(issues.map(issueText).join('; '));
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/**
 * Stored data that breaks an invariant Holdback relies on (a release without its amount or currency): reported naming
 * the record, never guessed around. The API answers 500 `stored_data_defect` with this message.
 */
export class StoredDataDefect extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoredDataDefect';
  }
}
