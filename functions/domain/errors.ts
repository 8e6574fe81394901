/** The error a caller gets for bad input: every issue names the field, what was wrong and what to send instead. */

export interface ValidationIssue {
  field: string;
  problem: string;
  expected: string;
}

export class ValidationError extends Error {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.problem}; send ${i.expected}`).join('; '));
    this.name = 'ValidationError';
    this.issues = issues;
  }
}
