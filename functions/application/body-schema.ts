/**
 * JSON request bodies declared once: each member's schema (for the OpenAPI document) beside the reader that refuses it
 * with the field, the problem and what to send. The routes read their bodies with these before the use case runs, and
 * the document's requestBody is the same object's `schema`, so that what is checked and what is documented cannot
 * drift. Where a member's meaning is the domain's (an instant, a schedule option, a release rule), its reader calls
 * the domain's parser. Pure: it imports the domain's errors only, so a use case may read a body by it too.
 */
import { ValidationError, collectIssues, isRecord, type ValidationIssue } from '../domain/errors';

type Json = Record<string, unknown>;

/** A JSON body: its schema and example for the document, the example a refusal quotes, and its reading. */
export interface BodySchema<B = unknown> {
  schema: Json;
  example: unknown;
  /** What "send a JSON object, e.g. ..." quotes when the body is empty or not JSON. */
  hint: string;
  /** No body at all is fine: it is read as `undefined`. */
  optional?: boolean;
  /** Reads the parsed JSON into what the use case takes, every bad member named; absent: the use case reads it. */
  read?(body: unknown): B;
}

/** `body` read by `schema` (as its route reads it), e.g. a stored request replayed. */
export function readBody<B>(schema: BodySchema<B>, body: unknown): B {
  return schema.read ? schema.read(body) : body as B;
}

/** `example` written as a refusal quotes it: `{"deferByDays": 15}`. */
export function exampleText(example: unknown): string {
  if (Array.isArray(example)) return `[${example.map(exampleText).join(', ')}]`;
  if (typeof example === 'object' && example !== null) {
    return `{${Object.entries(example).map(([key, value]) => `${JSON.stringify(key)}: ${exampleText(value)}`).join(', ')}}`;
  }
  return JSON.stringify(example);
}

/** One member of a JSON object body: its schema in the document, and how its value (undefined: absent) is read. */
export interface Field<T> {
  schema: Json;
  /** Listed as required in the document. */
  required?: boolean;
  /** Throws a ValidationError naming `name` when the value is wrong; undefined leaves the member out of what is read. */
  read(value: unknown, name: string): T;
  /** Refused, it ends the reading: the members after it are not read (they depend on it, e.g. on an export's kind). */
  stops?: boolean;
}

type Fields = Record<string, Field<unknown>>;
/** The values a body's members read. */
export type BodyOf<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

export interface ObjectBody<F extends Fields, L extends Fields> {
  /** The members, in the order their refusals are listed. */
  fields: F;
  /** Members read only once `fields` (and the unknown members) are right, in their own refusal. */
  then?: L;
  /** A check across the members read (a member that was refused is absent), adding its issues after theirs. */
  check?(values: BodyOf<F> & BodyOf<L>, issues: ValidationIssue[]): void;
  example: unknown;
  /** The example "send a JSON object, e.g. ..." quotes for an empty or unreadable body (default: `example`). */
  hint?: string;
  description?: string;
  /** What a body that is not a JSON object is told to send (default: the hint), or its whole refusal. */
  notObject?: string | ((value: unknown) => ValidationIssue);
  /** What a member the body does not know is told to send, and (default "is not a known field") what is wrong. */
  unknownMember: string;
  unknownProblem?: string;
  /** Where unknown members are listed: before the members' issues (default), alone (refused first), or after them. */
  unknownMembers?: 'before' | 'alone' | 'after';
  /** No body (or null) reads as `{}`. */
  optional?: boolean;
}

/**
 * A JSON object body: the document's schema (its members, the required ones, no other member) and its reading: every
 * bad member named at once, in the order of `fields` (then of `then`), unknown members where `unknownMembers` says.
 * What is read leaves out members that read as undefined, so it is stored and replayed as sent.
 */
export function objectBody<F extends Fields, L extends Fields = Record<never, never>>(body: ObjectBody<F, L>): BodySchema<BodyOf<F> & BodyOf<L>> {
  const all: Fields = { ...body.fields, ...body.then };
  const names = Object.keys(all);
  const hint = body.hint ?? exampleText(body.example);
  const schema: Json = {
    type: 'object',
    ...(body.description === undefined ? {} : { description: body.description }),
    required: names.filter((name) => all[name].required),
    properties: Object.fromEntries(names.map((name) => [name, all[name].schema])),
    additionalProperties: false,
  };
  const stages = [body.fields, ...(body.then ? [body.then] : [])] as Fields[];
  return {
    schema,
    example: body.example,
    hint,
    ...(body.optional ? { optional: true } : {}),
    read: (sent) => {
      const value = body.optional && (sent === undefined || sent === null) ? {} : sent;
      if (!isRecord(value)) {
        const { notObject } = body;
        throw new ValidationError([typeof notObject === 'function' ? notObject(value) : { field: 'body', problem: 'is not a JSON object', expected: notObject ?? hint }]);
      }
      const unknown: ValidationIssue[] = Object.keys(value).filter((name) => !names.includes(name))
        .map((name) => ({ field: name, problem: body.unknownProblem ?? 'is not a known field', expected: body.unknownMember }));
      const placed = body.unknownMembers ?? 'before';
      if (placed === 'alone' && unknown.length > 0) throw new ValidationError(unknown);
      const values: Record<string, unknown> = {};
      stages.forEach((stage, i) => {
        const issues: ValidationIssue[] = i === 0 && placed === 'before' ? [...unknown] : [];
        for (const name of Object.keys(stage)) {
          const before = issues.length;
          const read = collectIssues(issues, () => stage[name].read(value[name], name));
          if (read !== undefined) values[name] = read;
          if (stage[name].stops && issues.length > before) throw new ValidationError(issues);
        }
        if (i === 0 && placed === 'after') issues.push(...unknown);
        if (i === stages.length - 1) body.check?.(values as BodyOf<F> & BodyOf<L>, issues);
        if (issues.length > 0) throw new ValidationError(issues);
      });
      return values as BodyOf<F> & BodyOf<L>;
    },
  };
}

/** How a text member is refused: `is <value quoted, cut at `cut` characters>, not a text of 1 to <limit> characters`. */
export interface TextRule {
  limit: number;
  expected: string;
  schema?: Json;
  required?: boolean;
  /** Absent: this value (`null`: refused "is missing"; default: left out). */
  absent?: string | null;
  cut?: number;
  /** The problem after the quoted value (default "not a text of 1 to <limit> characters"). */
  problem?: string;
}

/** A text of 1 to `limit` characters, trimmed. */
export function textField(rule: TextRule): Field<string> {
  return {
    schema: { type: 'string', maxLength: rule.limit, ...rule.schema },
    ...(rule.required ? { required: true } : {}),
    read: (value, field) => {
      if (value === undefined && rule.absent !== null) return rule.absent as string;
      if (typeof value === 'string' && value.trim() !== '' && value.length <= rule.limit) return value.trim();
      const shown = rule.cut === undefined ? JSON.stringify(value) : JSON.stringify(value)?.slice(0, rule.cut);
      const problem = value === undefined ? 'is missing' : `is ${shown}, ${rule.problem ?? `not a text of 1 to ${rule.limit} characters`}`;
      throw new ValidationError([{ field, problem, expected: rule.expected }]);
    },
  };
}

/**
 * A member checked by `issuesOf` (the domain's description of what it may be: none when fine) and read as sent;
 * `absent: 'skip'` leaves an absent member out unchecked (a partial body keeps what is in force).
 */
export function checkedField(issuesOf: (value: unknown) => ValidationIssue[], schema: Json, options: { required?: boolean; absent?: 'skip' | 'check' } = {}): Field<unknown> {
  return {
    schema,
    ...(options.required ? { required: true } : {}),
    read: (value) => {
      if (value === undefined && options.absent !== 'check') return undefined;
      const issues = issuesOf(value);
      if (issues.length > 0) throw new ValidationError(issues);
      return value;
    },
  };
}

/** A member taken as sent: what it means is decided against stored state by the use case (a version), or not at all. */
export function asSent(schema: Json): Field<unknown> {
  return { schema, read: (value) => value };
}

/** `true` or `false`, left out when absent; `meaning` says what true does. */
export function flagField(meaning: string, schema: Json = {}): Field<boolean | undefined> {
  return {
    schema: { type: 'boolean', ...schema },
    read: (value, field) => {
      if (value === undefined || typeof value === 'boolean') return value;
      throw new ValidationError([{ field, problem: `is ${JSON.stringify(value)?.slice(0, 60)}, not true or false`, expected: `${meaning}, or leave it out` }]);
    },
  };
}
