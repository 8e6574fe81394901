/** Bulk work and exports (contract 6.3): the jobs, POST /exports, and the local download of an export file. */
import { EXPORT_FILE_PATH } from '../../adapters/files/file-export-store';
import { cancelJob } from '../../application/jobs/cancel-job';
import { startExport } from '../../application/jobs/export-job';
import { getJob, jobView, listJobs } from '../../application/jobs/job-views';
import { json, jsonBodyOf, pathParameter, rawBodyOf } from '../http';
import { streamedResult } from '../streamed-body';
import type { ApiRoute } from './route';

const CANCEL_EXAMPLE = '{"actor": "finance@example.com", "reason": "started by mistake"}';
const EXPORT_EXAMPLE = '{"kind": "outcomes", "format": "csv", "filters": {"vendorId": "vendor_a"}}';

export const JOB_ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/jobs', run: async (e, deps) => json(200, await listJobs(await deps(), { ...(e.queryStringParameters ?? {}) })) },
  { method: 'GET', path: '/jobs/{jobId}', run: async (e, deps) => json(200, await getJob(await deps(), pathParameter(e, 'jobId'))) },
  {
    method: 'POST',
    path: '/jobs/{jobId}/cancel',
    // The body is optional: who cancels and why.
    run: async (e, deps) => json(200, await cancelJob(await deps(), pathParameter(e, 'jobId'), rawBodyOf(e).length === 0 ? undefined : jsonBodyOf(e, CANCEL_EXAMPLE))),
  },
  {
    method: 'POST',
    path: '/exports',
    run: async (e, deps) => {
      const d = await deps();
      const job = await startExport(d, jsonBodyOf(e, EXPORT_EXAMPLE));
      return json(202, { job: jobView(job, (await d.settings.get()).timezone) });
    },
  },
  {
    method: 'GET',
    path: `${EXPORT_FILE_PATH}/{file}`,
    run: async (e, deps) => {
      const d = await deps();
      const file = pathParameter(e, 'file');
      if (!d.exports.open) {
        return json(404, { error: { code: 'not_found', message: 'export files are served by their pre-signed link here (the job\'s result.url), not by the API' } });
      }
      const found = await d.exports.open(file, e.queryStringParameters?.token ?? '', d.clock.now().toJSDate());
      if (found.kind === 'not_found') {
        return json(404, { error: { code: 'not_found', message: `no export ${file.slice(0, 60)} with this token; use the url of the export job's result (GET /jobs/{jobId})` } });
      }
      if (found.kind === 'expired') {
        return json(410, { error: { code: 'export_expired', message: `this export link expired at ${found.expiresAt}; POST /exports again for a new file and link` } });
      }
      return streamedResult(200, {
        'content-type': found.contentType,
        'content-disposition': `attachment; filename="${found.fileName}"`,
        'cache-control': 'no-store',
      }, found.chunks);
    },
  },
];
