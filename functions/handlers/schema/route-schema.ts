/**
 * One schema per route: its path and query parameters and its body, declared once, read (every bad parameter named at
 * once, with what to send) before the use case runs, and turned into the route's operation in the OpenAPI document.
 */
import type { Dependencies } from '../../application/ports';
import { ValidationError, collectIssues, type ValidationIssue } from '../../domain/errors';
import { jsonBodyOf, pathParameter, rawBodyOf, type ApiEvent, type ApiResult } from '../http';
import type { ApiRoute } from '../routes/route';
import type { Json } from './openapi-parts';
import { exampleText, type BodySchema } from '../../application/body-schema';
import { parameterObject, type Param } from './params';

type Params = Record<string, Param<unknown>>;
/** The values a set of parameter schemas reads. */
export type ValuesOf<S extends Params> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

export { exampleText, type BodySchema };

/** A JSON object body; the use case checks what each field means and names it. */
export function jsonBody(schema: Json, example: unknown, hint: string = exampleText(example)): BodySchema {
  return { schema, example, hint };
}

export interface RouteSchema<P extends Params, Q extends Params, B = unknown> {
  method: ApiRoute['method'];
  path: string;
  summary: string;
  description?: string;
  /** `[]`: no IAM (the gateway's signed webhook). */
  security?: unknown[];
  params?: P;
  query?: Q;
  /** Refuse query parameters the route does not declare, naming them. */
  strictQuery?: boolean;
  /**
   * The query read whole, where its parameters depend on each other (a cursor belongs to its filters, CSV takes no
   * page): it names every bad parameter, and what it reads is the handler's `query`. `query` then documents them.
   */
  readQuery?(sent: Record<string, string | undefined>): unknown;
  body?: BodySchema<B>;
  /** A body that is not JSON (CSV, a signed webhook): documented here, read by the route itself. */
  otherBody?: Json;
  responses: Json;
  handle(request: { params: ValuesOf<P>; query: ValuesOf<Q>; body: B; event: ApiEvent }, deps: () => Promise<Dependencies>): Promise<ApiResult>;
}

/** The route the router runs and the document lists, from its one schema. */
export function defineRoute<P extends Params = Record<never, never>, Q extends Params = Record<never, never>, B = unknown>(schema: RouteSchema<P, Q, B>): ApiRoute {
  const params = (schema.params ?? {}) as P;
  const query = (schema.query ?? {}) as Q;
  const operation: Json = { summary: schema.summary };
  if (schema.description !== undefined) operation.description = schema.description;
  if (schema.security !== undefined) operation.security = schema.security;
  const parameters = [
    ...Object.entries(params).map(([name, param]) => parameterObject(name, 'path', param)),
    ...Object.entries(query).map(([name, param]) => parameterObject(name, 'query', param)),
  ];
  if (parameters.length > 0) operation.parameters = parameters;
  if (schema.body) operation.requestBody = { required: schema.body.optional !== true, content: { 'application/json': { schema: schema.body.schema, example: schema.body.example } } };
  else if (schema.otherBody) operation.requestBody = schema.otherBody;
  operation.responses = schema.responses;

  const known = Object.keys(query);
  // A closed body without an actor member (POST /predictions): a signed caller's name is not filled in as one.
  const bodySchema = schema.body?.schema as { properties?: Record<string, unknown>; additionalProperties?: unknown } | undefined;
  const takesActor = !(bodySchema?.additionalProperties === false && !('actor' in (bodySchema.properties ?? {})));
  return {
    method: schema.method,
    path: schema.path,
    operation,
    declared: { params, query, ...(schema.body ? { body: schema.body } : {}) },
    run: async (event, deps) => {
      const issues: ValidationIssue[] = [];
      const pathValues = readAll(params, issues, (name) => pathParameter(event, name));
      const sent = event.queryStringParameters ?? {};
      if (schema.readQuery) {
        if (issues.length > 0) throw new ValidationError(issues);
        const queryValues = schema.readQuery({ ...sent }) as ValuesOf<Q>;
        return schema.handle({ params: pathValues, query: queryValues, body: undefined as B, event }, deps);
      }
      if (schema.strictQuery) {
        for (const name of Object.keys(sent)) {
          if (!known.includes(name)) issues.push({ field: name, problem: `is not a parameter of ${schema.method} ${schema.path}`, expected: `only ${known.join(', ')}` });
        }
      }
      const queryValues = readAll(query, issues, (name) => sent[name], sent);
      if (issues.length > 0) throw new ValidationError(issues);
      const absent = schema.body?.optional === true && rawBodyOf(event).length === 0;
      const sentBody = schema.body && !absent ? jsonBodyOf(event, schema.body.hint, takesActor) : undefined;
      const body = (schema.body?.read ? schema.body.read(sentBody) : sentBody) as B;
      return schema.handle({ params: pathValues, query: queryValues, body, event }, deps);
    },
  };
}

function readAll<S extends Params>(schemas: S, issues: ValidationIssue[], textOf: (name: string) => string | undefined, sent: Record<string, string | undefined> = {}): ValuesOf<S> {
  const values: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(schemas)) {
    values[name] = collectIssues(issues, () => param.read(textOf(name), name, sent));
  }
  return values as ValuesOf<S>;
}
