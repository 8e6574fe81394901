/** Routes of contract section 6 that show a change before it is made: the policy preview and the settings preview. */
import { previewPolicyOrJob, previewSettingsOrJob, type PreviewOrJob } from '../../application/config/preview-changes';
import { jobView } from '../../application/jobs/job-views';
import type { Dependencies } from '../../application/ports';
import { json, jsonBodyOf, pathParameter } from '../http';
import type { ApiRoute } from './route';

const POLICY_PREVIEW_EXAMPLE = '{"scheduleOption": 1, "release": {"kind": "immediate"}, "actor": "finance@example.com", "reason": "trusted vendor", "applyTo": "open_orders"}';

/** 200 with the preview, or 202 `{job}` when it covers more than one answer carries (contract 6.3). */
async function answer(deps: Dependencies, outcome: PreviewOrJob<unknown>) {
  if (outcome.job === null) return json(200, outcome.preview);
  return json(202, { job: jobView(outcome.job, (await deps.settings.get()).timezone) });
}

export const PREVIEW_ROUTES: ApiRoute[] = [
  {
    method: 'POST',
    path: '/vendors/{vendorId}/policy/preview',
    run: async (e, deps) => {
      const d = await deps();
      return answer(d, await previewPolicyOrJob(d, pathParameter(e, 'vendorId'), jsonBodyOf(e, POLICY_PREVIEW_EXAMPLE), e.queryStringParameters?.limit));
    },
  },
  {
    method: 'POST',
    path: '/settings/preview',
    run: async (e, deps) => {
      const d = await deps();
      return answer(d, await previewSettingsOrJob(d, jsonBodyOf(e, '{"deferByDays": 10}'), e.queryStringParameters?.limit));
    },
  },
];
