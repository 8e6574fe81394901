/** The bulk policy import of contract section 6: `POST /policies/import?dryRun=&actor=` with a text/csv body. */
import { IMPORT_HEADER, importPolicies } from '../../application/config/import-policies';
import { ValidationError } from '../../domain/errors';
import { json, rawBodyOf, type ApiEvent } from '../http';
import type { ApiRoute } from './route';
import { actorOfCaller, callerOf } from '../caller';

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];

export const IMPORT_ROUTES: ApiRoute[] = [
  {
    method: 'POST',
    path: '/policies/import',
    run: async (e, deps) => {
      requireCsv(e);
      const query = e.queryStringParameters ?? {};
      // On AWS `?actor=` must name the signed caller, and is the caller's name when left out (contract 6.4).
      const caller = callerOf(e);
      const actor = caller.authenticated && !query.actor ? caller.name ?? undefined : actorOfCaller(query.actor, caller, 'actor') as string | undefined;
      return json(200, await importPolicies(await deps(), rawBodyOf(e), { dryRun: query.dryRun, actor }));
    },
  },
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
