/**
 * The body of POST /exports (contract 6.3), declared once: an outcomes export (a format and GET /outcomes' filters) or
 * an audit export (a range), told apart by `kind`. Read by the route before any job starts, with today's refusals word
 * for word (every bad member named, `filters.<name>` for a filter), and documented from the same objects.
 */
import { collectIssues, ValidationError, isRecord, type ValidationIssue } from '../../domain/errors';
import { objectBody, textField, type BodySchema, type Field } from '../../application/body-schema';
import { auditRangeOf } from '../../application/audit/audit-log-views';
import { parseOutcomeQuery } from '../../application/outcome-rows';
import type { ExportInput } from '../../application/audit/export-job';

const EXAMPLE = '{"kind": "outcomes", "format": "csv", "filters": {"vendorId": "vendor_a", "from": "2022-12-01", "to": "2022-12-31"}} or {"kind": "audit", "from": "2022-12-01"}';
const OUTCOME_FORMATS = ['csv', 'jsonl'];

const actor = textField({ limit: 200, absent: 'api', expected: 'who asks, e.g. "auditor@example.com", or leave it out' });
const whole = (known: string[]) => ({ notObject: EXAMPLE, unknownMember: `only ${known.join(', ')}`, unknownProblem: 'is not a field of this export' });

/** `from` or `to` of an audit export: a text (null: none), read as a range bound together with the other. */
const rangeText: Field<string | undefined> = {
  schema: { type: 'string' },
  read: (value, field) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(value)}, not a text`, expected: 'a date YYYY-MM-DD (India time) or an ISO 8601 time with an offset' }]);
  },
};

const AUDIT_EXPORT = objectBody({
  fields: { actor, kind: { schema: { const: 'audit' }, required: true, read: (value: unknown) => value as 'audit' }, from: rangeText, to: rangeText },
  check: ({ from, to }, issues) => collectIssues(issues, () => auditRangeOf({ ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) })),
  example: { kind: 'audit', from: '2022-12-01' },
  ...whole(['kind', 'from', 'to', 'actor']),
});

/** GET /outcomes' filters as text, each refused as GET /outcomes would refuse it (named `filters.<name>`). */
const filters: Field<Record<string, string> | undefined> = {
  schema: { type: 'object', description: 'The filters of GET /outcomes (vendorId, orderId, state, from, to, by) as text; not cursor or limit.', additionalProperties: { type: 'string' } },
  read: (value) => {
    const issues: ValidationIssue[] = [];
    const good: Record<string, string> = {};
    if (value !== undefined && !isRecord(value)) {
      issues.push({ field: 'filters', problem: 'is not a JSON object', expected: 'the filters of GET /outcomes, e.g. {"vendorId": "vendor_a", "state": "APPLIED"}' });
    } else {
      for (const [name, filter] of Object.entries(value ?? {})) {
        if (['cursor', 'limit', 'format'].includes(name)) issues.push({ field: `filters.${name}`, problem: 'is not a filter of an export', expected: 'only vendorId, orderId, state, from, to, by: the file holds every matching row' });
        else if (typeof filter !== 'string') issues.push({ field: `filters.${name}`, problem: `is ${JSON.stringify(filter)}, not a text`, expected: 'the value as GET /outcomes takes it, e.g. "2022-12-01"' });
        else good[name] = filter;
      }
    }
    const outcomes: ValidationIssue[] = [];
    collectIssues(outcomes, () => parseOutcomeQuery({ ...good, format: 'csv' }));
    issues.push(...outcomes.map((issue) => ({ ...issue, field: `filters.${issue.field}` })));
    if (issues.length > 0) throw new ValidationError(issues);
    return value === undefined ? undefined : good;
  },
};

const OUTCOMES_EXPORT = objectBody({
  fields: {
    actor,
    kind: {
      schema: { const: 'outcomes' }, required: true, stops: true,
      read: (value: unknown, field: string) => {
        if (value === 'outcomes') return value as 'outcomes';
        throw new ValidationError([{ field, problem: `is ${JSON.stringify(value) ?? 'missing'}`, expected: '"outcomes" or "audit"' }]);
      },
    },
    format: {
      schema: { type: 'string', enum: OUTCOME_FORMATS, description: 'csv: the columns of contract 6.1; jsonl: one outcome as GET /outcomes shows it a line.' }, required: true,
      read: (value: unknown, field: string) => {
        if (OUTCOME_FORMATS.includes(value as string)) return value as 'csv' | 'jsonl';
        throw new ValidationError([{ field, problem: `is ${JSON.stringify(value) ?? 'missing'}`, expected: '"csv" (the columns of GET /outcomes?format=csv) or "jsonl" (one outcome as GET /outcomes shows it a line)' }]);
      },
    },
    filters,
  },
  example: { kind: 'outcomes', format: 'csv', filters: { vendorId: 'vendor_a', from: '2022-12-01', to: '2022-12-31' } },
  ...whole(['kind', 'format', 'filters', 'actor']),
});

/** Either export, by its kind (anything but "audit" is read, and refused, as an outcomes export). */
export const EXPORT_BODY: BodySchema<ExportInput> = {
  schema: { oneOf: [OUTCOMES_EXPORT.schema, AUDIT_EXPORT.schema] },
  example: OUTCOMES_EXPORT.example,
  hint: '{"kind": "outcomes", "format": "csv", "filters": {"vendorId": "vendor_a"}}',
  read: (body) => (isRecord(body) && body.kind === 'audit' ? AUDIT_EXPORT : OUTCOMES_EXPORT).read!(body),
};
