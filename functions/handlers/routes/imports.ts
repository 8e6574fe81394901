/** The bulk policy import of contract section 6: `POST /policies/import?dryRun=&actor=` with a text/csv body. */
import { IMPORT_HEADER, dryRunOf, importPolicies } from '../../application/config/import-policies';
import { ValidationError } from '../../domain/errors';
import { json, rawBodyOf, type ApiEvent } from '../http';
import { ok, ref, responses } from '../schema/openapi-parts';
import { parsed, text } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import type { ApiRoute } from './route';
import { actorOfCaller, callerOf } from '../schema/caller';

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];

export const IMPORT_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/policies/import',
    summary: 'Bulk policies from CSV: a dry run by default; an apply is all or nothing and idempotent',
    query: {
      dryRun: parsed('false applies.', { type: 'string', enum: ['true', 'false'], default: 'true' }, (value) => {
        dryRunOf(value);
        return value;
      }),
      // Required only to apply, and on AWS the signed principal's name when absent: the use case, which knows both, reads it.
      actor: { ...text('Who imports (recorded with every version); required to apply, not for a dry run (on AWS, absent: your principal\'s name).'), example: 'finance@example.com' },
    },
    otherBody: { required: true, content: { 'text/csv': { schema: { type: 'string' }, example: 'vendorId,scheduleOption,release,delay,reason\nvendor_a,1,after_delivery,P2D,trusted\n' } } },
    responses: responses({ 200: ok('A dry run: what is wrong where. An apply: the versions written (none when the same file was applied before).', ref('ImportAnswer')) }, {
      400: 'Not text/csv, too many lines, a bad query, or (apply) any line wrong: every line and field is named and nothing is applied.',
      409: 'import_conflict: a policy changed while applying, nothing of the file stays applied; import_in_progress: the same file is still being applied.',
      413: 'payload_too_large: the body is larger than the API accepts.',
    }),
    handle: async ({ event, query }, deps) => {
      requireCsv(event);
      // On AWS `?actor=` must name the signed caller, and is the caller's name when left out (contract 6.4).
      const caller = callerOf(event);
      const actor = caller.authenticated && !query.actor ? caller.name ?? undefined : actorOfCaller(query.actor, caller, 'actor') as string | undefined;
      return json(200, await importPolicies(await deps(), rawBodyOf(event), { ...query, actor }));
    },
  }),
];

function requireCsv(event: ApiEvent): void {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  const type = header.split(';')[0].trim().toLowerCase();
  if (!CSV_TYPES.includes(type)) {
    throw new ValidationError([{
      field: 'content-type',
      problem: type ? `is ${JSON.stringify(type)}` : 'is missing',
      expected: `text/csv, a header line ${IMPORT_HEADER.join(',')} and one policy per line`,
    }]);
  }
}
