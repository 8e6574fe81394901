/** Routes of contract section 6 that show a change before it is made: the policy preview and the settings preview. */
import { LISTED_RELEASES, previewPolicyOrJob, previewSettingsOrJob, type PreviewOrJob } from '../../application/config/preview-changes';
import { jobView } from '../../application/job-views';
import { PREVIEW_INLINE_RELEASES, type Dependencies } from '../../application/ports';
import { json } from '../http';
import { ok, ref, responses } from '../schema/openapi-parts';
import { count, id } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import { POLICY_PREVIEW_BODY, SETTINGS_PREVIEW_BODY } from '../schema/config-bodies';
import type { ApiRoute } from './route';
import { groupedCount } from '../../../kit/money-format';

/** A preview over more open releases than one answer carries (contract 6.3). */
const PREVIEW_JOB = ok(`The preview covers more than ${groupedCount(PREVIEW_INLINE_RELEASES)} open releases (HOLDBACK_PREVIEW_INLINE_RELEASES): the job that computes it; GET /jobs/{jobId} until it has succeeded, and its \`result\` is the preview (its \`previewId\` works with the PUT as any other; it lists at most 500 releases, perDay covers them all).`, { type: 'object', required: ['job'], properties: { job: ref('Job') } });
const PREVIEW_LIMIT = count(0, LISTED_RELEASES.max, LISTED_RELEASES.default, 'Releases listed (perDay always covers every release).');

/** 200 with the preview, or 202 `{job}` when it covers more than one answer carries (contract 6.3). */
async function answer(deps: Dependencies, outcome: PreviewOrJob<unknown>) {
  if (outcome.job === null) return json(200, outcome.preview);
  return json(202, { job: jobView(outcome.job, (await deps.settings.get()).timezone) });
}

export const PREVIEW_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'POST', path: '/vendors/{vendorId}/policy/preview', summary: 'What a policy change would move, changing nothing',
    params: { vendorId: id('vendor_a') }, query: { limit: PREVIEW_LIMIT },
    body: POLICY_PREVIEW_BODY,
    responses: responses({ 200: ok("The vendor's unsent releases now and under the change, with totals per India-time day.", ref('Preview')), 202: PREVIEW_JOB }, { 400: 'A field or limit is wrong; no job was started.' }),
    handle: async ({ params, query, body }, deps) => {
      const d = await deps();
      return answer(d, await previewPolicyOrJob(d, params.vendorId, body, query.limit));
    },
  }),
  defineRoute({
    method: 'POST', path: '/settings/preview', summary: 'What a settings change would move, changing nothing',
    query: { limit: PREVIEW_LIMIT },
    body: SETTINGS_PREVIEW_BODY,
    responses: responses({ 200: ok('Every unsent release it would move, and those the gateway would refuse.', ref('Preview')), 202: PREVIEW_JOB }, { 400: 'A field or limit is wrong; no job was started.' }),
    handle: async ({ query, body }, deps) => {
      const d = await deps();
      return answer(d, await previewSettingsOrJob(d, body, query.limit));
    },
  }),
];
