/**
 * Path and query parameter schemas: each one both reads a parameter (refusing it with the field, the problem and what
 * to send) and describes it in the OpenAPI document, so that what is checked and what is documented cannot drift.
 */
import { decodeCursor, boundedCount } from '../../application/cursor';
import { requireId } from '../../application/ids';
import { ValidationError } from '../../domain/errors';
import { ID, type Json } from './openapi-parts';

/** One parameter: how it is documented, and how its text (undefined: absent) becomes a value. */
export interface Param<T> {
  schema: Json;
  description?: string;
  example?: string;
  required?: boolean;
  /** Any text is read as sent: what it names is looked up where it is used (an asset, a file and its token). */
  free?: true;
  /** Throws a ValidationError naming `name` when the text is wrong; `sent` is every query parameter, for one read with another. */
  read(text: string | undefined, name: string, sent: Record<string, string | undefined>): T;
}

/** The OpenAPI parameter object of `param` as `name` in the path or the query. */
export function parameterObject(name: string, where: 'path' | 'query', param: Param<unknown>): Json {
  const object: Json = { name, in: where, required: where === 'path' || param.required === true, schema: param.schema };
  if (param.description !== undefined) object.description = param.description;
  if (param.example !== undefined) object.example = param.example;
  return object;
}

/** Any text, as sent (absent: undefined): a name looked up where it is used, which answers 404 when nothing has it. */
export function text(description: string, schema: Json = { type: 'string' }): Param<string | undefined> {
  return { schema, description, free: true, read: (value) => value };
}

/** Any text that must be sent; `example` is what the document's example call sends. */
export function requiredText(description: string, example?: string, schema: Json = { type: 'string' }): Param<string | undefined> {
  return { schema, description, example, required: true, free: true, read: (value) => value };
}

/** Text read by `read` (a ValidationError naming `name` when wrong), documented by `schema`. */
export function parsed<T>(description: string, schema: Json, read: Param<T>['read'], extra: { example?: string; required?: boolean } = {}): Param<T> {
  return { schema, description, ...extra, read };
}

/** A parameter of a query read whole by its route's `readQuery` (it depends on the others): documented here. */
export function ofQuery(description: string, schema: Json): Param<string | undefined> {
  return { schema, description, read: (value) => value };
}

/** An id of the gateway's rule (3 to 45 of A-Z, a-z, 0-9, "_" and "-"), checked before it reaches a key or a URL. */
export function id(example: string, description?: string): Param<string> {
  return { schema: ID, example, description, read: (value, name) => requireId(value, name) };
}

/** An optional id filter of a query. */
export function optionalId(description: string): Param<string | undefined> {
  return { schema: ID, description, read: (value, name) => (value === undefined ? undefined : requireId(value, name)) };
}

/** A whole number from `min` to `max`, `fallback` when absent. */
export function count(min: number, max: number, fallback: number, description: string): Param<number> {
  return {
    schema: { type: 'integer', minimum: min, maximum: max, default: fallback },
    description,
    read: (value, name) => boundedCount(value, name, min, max, fallback),
  };
}

/** The nextCursor of the previous page of `list` (null: the first page). */
export function cursor(list: string, description = 'From nextCursor of the previous page.'): Param<string | null> {
  return { schema: { type: 'string' }, description, read: (value) => decodeCursor(value, list) };
}

/** One of `values` (absent: undefined). */
export function oneOf<const V extends string>(values: readonly V[], description: string, fallback?: V): Param<V | undefined> {
  return {
    schema: { type: 'string', enum: [...values], ...(fallback === undefined ? {} : { default: fallback }) },
    description,
    read: (value, name) => {
      if (value === undefined) return fallback;
      if ((values as readonly string[]).includes(value)) return value as V;
      throw new ValidationError([{ field: name, problem: `is ${JSON.stringify(value)}`, expected: `one of ${values.join(', ')}` }]);
    },
  };
}

/** `true` or `false` (absent: `fallback`). */
export function flag(fallback: boolean, description: string): Param<boolean> {
  return {
    schema: { type: 'boolean', default: fallback },
    description,
    read: (value, name) => {
      if (value === undefined) return fallback;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new ValidationError([{ field: name, problem: `is ${JSON.stringify(value)}`, expected: 'true or false' }]);
    },
  };
}
