/** The small OpenAPI 3.1 builders the route schemas and the components share (references, instants, decimals, answers). */

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
/** A lowercase hex SHA-256. */
export const HEX64: Json = { type: 'string', pattern: '^[0-9a-f]{64}$' };
/** An object schema: what it is, the members it always has, and each member's schema. */
export const object = (description: string, required: string[], properties: Json, extra: Json = {}): Json => ({ type: 'object', description, required, properties, ...extra });
export const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
export const instant = (description: string): Json => ({ type: 'string', format: 'date-time', description: `${description} ISO 8601 with the settings' timezone offset.`, example: '2022-12-02T16:00:00+05:30' });
export const decimal = (description: string): Json => ({ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: `${description} Decimal text in the currency given beside it (never added across currencies), never a float.`, example: '600.00' });
export const ID: Json = { type: 'string', pattern: '^[A-Za-z0-9_-]{3,45}$', description: "The gateway's id rule: 3 to 45 of A-Z, a-z, 0-9, '_' and '-'." };
export const page = (name: string, item: Json, extra: Json = {}): Json => ({
  type: 'object', required: [name, 'nextCursor'], properties: { [name]: { type: 'array', items: item }, nextCursor: nullable({ type: 'string' }), ...extra }, additionalProperties: true,
});
/** An answer that may be larger than an AWS Lambda response can carry (the HTTP API cannot stream it). */
export const TOO_LARGE_ON_AWS = 'response_too_large, on AWS only: the answer exceeds what a Lambda response may carry; page with format=json and cursor, or narrow from/to.';
export const ok = (description: string, schema: Json, extra: Json = {}): Json => ({ description, content: { 'application/json': { schema } }, ...extra });
const error = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** The refusals every route may answer, plus each route's own. */
export function responses(success: Record<string, Json>, refusals: Record<string, string> = {}): Json {
  return {
    ...success,
    ...Object.fromEntries(Object.entries(refusals).map(([status, why]) => [status, error(why)])),
    500: error('A fault of Holdback; the details are in its log, never in the answer.'),
  };
}

/**
 * The 202 of a change that four eyes holds (contract 6.4). Here rather than beside the approval components, whose
 * schemas only the OpenAPI document needs: a route that imports this does not carry them into its function.
 */
export const APPROVAL_REQUIRED: Json = ok('Four eyes (contract 6.4): the settings\' approvals name this change, so nothing changed; it waits as a pending approval for another person.', { type: 'object', required: ['approval'], properties: { approval: ref('Approval') } });
