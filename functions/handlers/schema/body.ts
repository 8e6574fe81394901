/**
 * JSON body schemas, as params.ts is for parameters: each member declared once, both read (refused with the field, the
 * problem and what to send) before the use case runs and described in the OpenAPI document, so that what is checked
 * and what is documented cannot drift. Where the meaning of a member is the domain's (an instant, a schedule option),
 * its reader calls the domain's parser: one description per body.
 */
import { ValidationError, collectIssues, isRecord, type ValidationIssue } from '../../domain/errors';
import type { Json } from './openapi-parts';
import { exampleText, type BodySchema } from './route-schema';

/** One member of a JSON object body: its schema in the document, and how its value (undefined: absent) is read. */
export interface Field<T> {
  schema: Json;
  /** Listed as required in the document. */
  required?: boolean;
  /** Throws a ValidationError naming `name` when the value is wrong. */
  read(value: unknown, name: string): T;
}

type Fields = Record<string, Field<unknown>>;
/** The values a body's members read. */
export type BodyOf<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

export interface ObjectBody<F extends Fields> {
  /** The members, in the order their refusals are listed. */
  fields: F;
  example: unknown;
  description?: string;
  /** What a body that is not a JSON object is told to send (default: the example). */
  notObject?: string;
  /** What a member the body does not know is told to send. */
  unknownMember: string;
}

/**
 * A JSON object body: the document's schema (its members, the required ones, no other member) and its reading: an
 * unknown member refused, then every bad member named at once, in the order of `fields`.
 */
export function objectBody<F extends Fields>(body: ObjectBody<F>): BodySchema<BodyOf<F>> {
  const names = Object.keys(body.fields);
  const hint = exampleText(body.example);
  const schema: Json = {
    type: 'object',
    ...(body.description === undefined ? {} : { description: body.description }),
    required: names.filter((name) => body.fields[name].required),
    properties: Object.fromEntries(names.map((name) => [name, body.fields[name].schema])),
    additionalProperties: false,
  };
  return {
    schema,
    example: body.example,
    hint,
    read: (value) => {
      if (!isRecord(value)) throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: body.notObject ?? hint }]);
      const issues: ValidationIssue[] = Object.keys(value).filter((name) => !names.includes(name))
        .map((name) => ({ field: name, problem: 'is not a known field', expected: body.unknownMember }));
      const values: Record<string, unknown> = {};
      for (const name of names) values[name] = collectIssues(issues, () => body.fields[name].read(value[name], name));
      if (issues.length > 0) throw new ValidationError(issues);
      return values as BodyOf<F>;
    },
  };
}
