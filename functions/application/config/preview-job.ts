/**
 * The job of a preview too large for one answer (contract 6.3): one step that computes the preview as the request
 * would have (stored the same way, so its previewId works with the PUT); the job's result is the preview.
 */
import { previewOfJob } from './preview-changes';
import type { Dependencies, StoredJob } from '../ports';
import type { StepWork } from '../release-walk';

export async function previewStep(deps: Dependencies, job: StoredJob): Promise<StepWork> {
  const preview = await previewOfJob(deps, job);
  return { count: preview.covered, opened: [], run: async () => ({ done: preview.covered, failed: 0, failures: [] }), result: () => preview };
}
