/** Validates sandbox responses against the gateway's public OpenAPI document (2022-09-01), where it covers the endpoint. */
import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const DOCUMENT = '/work/shared/reference/openapi/cashfree-pg-2022-09-01.yaml';

type Json = Record<string, any>;

/**
 * Where the interface document (which wins, gateway-facts preamble) says otherwise than the OpenAPI document, the
 * schema is patched here, each with the interface's words. Nothing else is changed.
 */
const INTERFACE_OVERRIDES: Array<{ why: string; apply: (schemas: Json) => void }> = [
  { why: '2.5: payment_method is "the chosen method, for example emi, paylater"', apply: (s) => { s.OrderPayResponse.properties.payment_method.enum.push('emi'); } },
  { why: '2.5: data.content_type and data.method are null for action link', apply: (s) => { s.OrderPayData.properties.content_type.nullable = true; s.OrderPayData.properties.method.nullable = true; } },
  { why: '2.10: link_minimum_partial_amount is "number or null"', apply: (s) => { s.LinkResponse.properties.link_minimum_partial_amount.nullable = true; } },
  { why: '2.10: link_meta.upi_intent is a string "true"/"false" in responses', apply: (s) => { s.LinkMetaEntity.properties.upi_intent = { type: 'string', enum: ['true', 'false'] }; } },
];

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `gateway.json${value}` : rewriteRefs(value);
  }
  return out;
}

export class OpenApiContract {
  private readonly ajv: Ajv;
  private readonly document: Json;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    // Core schema: the document has unquoted dates that a YAML 1.1 loader would turn into Date objects.
    this.document = parse(readFileSync(DOCUMENT, 'utf8'), { schema: 'core' }) as Json;
    const components = structuredClone(this.document.components) as Json;
    for (const override of INTERFACE_OVERRIDES) override.apply(components.schemas);
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    for (const format of ['double', 'float', 'int32', 'int64']) this.ajv.addFormat(format, true);
    this.ajv.addFormat('YYYY-MM-DD', /^\d{4}-\d{2}-\d{2}$/);
    this.ajv.addSchema({ $id: 'gateway.json', components: rewriteRefs(components) });
  }

  /** The response schema of `method path` (the document's path template, e.g. /links/{link_id}) for a status. */
  private validatorFor(path: string, method: string, status: number): ValidateFunction {
    const key = `${method} ${path} ${status}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const operation = this.document.paths?.[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the OpenAPI document has no ${method} ${path}`);
    let response = operation.responses?.[String(status)];
    if (!response) throw new Error(`the OpenAPI document has no ${status} response for ${method} ${path}`);
    if (typeof response.$ref === 'string') response = this.document.components.responses[response.$ref.split('/').pop() as string];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) throw new Error(`the OpenAPI document has no JSON schema for ${status} of ${method} ${path}`);
    const validate = this.ajv.compile(rewriteRefs(schema) as Json);
    this.cache.set(key, validate);
    return validate;
  }

  /** Throws with every violation when `body` does not match the documented response. */
  check(method: string, path: string, status: number, body: unknown): void {
    const validate = this.validatorFor(path, method, status);
    if (!validate(body)) {
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');
      throw new Error(`${method} ${path} ${status} does not match the OpenAPI document: ${problems}\nbody: ${JSON.stringify(body)}`);
    }
  }
}
