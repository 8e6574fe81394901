/**
 * The API reference, rendered here from the API's own OpenAPI document (`GET /openapi.json`): every route with its
 * summary, parameters, request example and answers. Nothing is loaded from elsewhere.
 */
import { useState } from 'preact/hooks';
import { call } from '../api';
import { Loaded } from '../form';
import { useLoad } from '../load';

type Json = Record<string, any>;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** A `$ref` to a component schema, followed once; its name kept for the reader. */
function resolve(doc: Json, schema: Json | undefined): { name: string | null; schema: Json } {
  const ref = schema?.$ref as string | undefined;
  if (!ref) return { name: null, schema: schema ?? {} };
  const name = ref.split('/').pop()!;
  return { name, schema: doc.components?.schemas?.[name] ?? {} };
}

/** A schema in one line: "object {orderId, vendors, …}", "string (date-time)", "array of Release". */
function schemaText(doc: Json, schema: Json | undefined): string {
  const { name, schema: s } = resolve(doc, schema);
  if (name) return name;
  if (s.oneOf) return s.oneOf.map((o: Json) => schemaText(doc, o)).join(' or ');
  if (s.type === 'array') return `array of ${schemaText(doc, s.items)}`;
  if (s.enum) return `one of ${s.enum.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === 'object' && s.properties) {
    const keys = Object.keys(s.properties);
    return `object {${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}}`;
  }
  return [s.type ?? 'any', s.format ? `(${s.format})` : ''].filter(Boolean).join(' ');
}

function OperationView({ doc, operation }: { doc: Json; operation: Operation }) {
  const { method, path, op } = operation;
  const parameters: Json[] = op.parameters ?? [];
  const body = op.requestBody?.content as Json | undefined;
  const bodyType = body ? Object.keys(body)[0] : null;
  const example = bodyType ? body![bodyType].example : undefined;
  return (
    <article class="card api-op" id={`api-${method}-${path}`} data-testid={`api-op-${method.toUpperCase()} ${path}`}>
      <h3><code class="method">{method.toUpperCase()}</code> <code>{path}</code></h3>
      {op.summary ? <p>{op.summary}</p> : null}
      {op.description ? <p class="hint">{op.description}</p> : null}
      {parameters.length ? (
        <div class="table-wrap">
          <table>
            <caption>Parameters</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">What it is</th></tr></thead>
            <tbody>
              {parameters.map((p) => (
                <tr key={`${p.in}-${p.name}`}>
                  <th scope="row"><code>{p.name}</code>{p.required ? ' (required)' : ''}</th>
                  <td>{p.in}</td>
                  <td>{schemaText(doc, p.schema)}</td>
                  <td>{p.description ?? p.schema?.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {bodyType ? (
        <>
          <p><strong>Body</strong> ({bodyType}): {schemaText(doc, body![bodyType].schema)}</p>
          {example !== undefined ? <pre>{typeof example === 'string' ? example : JSON.stringify(example, null, 2)}</pre> : null}
        </>
      ) : null}
      <div class="table-wrap">
        <table>
          <caption>Answers</caption>
          <thead><tr><th scope="col">Status</th><th scope="col">What it means</th><th scope="col">Body</th></tr></thead>
          <tbody>
            {Object.entries((op.responses ?? {}) as Json).map(([status, answer]) => {
              const content = answer.content as Json | undefined;
              const type = content ? Object.keys(content)[0] : null;
              return (
                <tr key={status}>
                  <th scope="row">{status}</th>
                  <td>{answer.description ?? ''}</td>
                  <td>{type ? `${type}: ${schemaText(doc, content![type].schema)}` : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </article>
  );
}

export function ApiReferencePage() {
  const state = useLoad(() => call<Json>('GET', '/openapi.json'), []);
  const [search, setSearch] = useState('');
  return (
    <>
      <h1>API reference</h1>
      <p>
        Every route of Holdback's API, from its OpenAPI document (<a href="openapi.json" download="holdback-openapi.json">openapi.json</a>).
        Times are ISO 8601 with the India offset (+05:30); amounts are decimal text beside their currency.
      </p>
      <div class="field">
        <label for="api-search">Find a route (path, method or words of its summary)</label>
        <input id="api-search" type="search" data-testid="api-search" value={search} placeholder="e.g. release" onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <Loaded state={state}>
        {(doc) => {
          const operations: Operation[] = Object.entries((doc.paths ?? {}) as Json).flatMap(([path, item]) =>
            METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Json })));
          const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
          const shown = operations.filter((o) => words.every((w) => `${o.method} ${o.path} ${o.op.summary ?? ''}`.toLowerCase().includes(w)));
          return (
            <>
              <p class="hint" data-testid="api-count">{doc.info?.title ?? 'Holdback API'} {doc.info?.version ?? ''}: {shown.length} of {operations.length} operations.</p>
              {shown.map((o) => <OperationView key={`${o.method} ${o.path}`} doc={doc} operation={o} />)}
            </>
          );
        }}
      </Loaded>
    </>
  );
}
