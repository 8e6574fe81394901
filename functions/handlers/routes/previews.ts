/** Routes of contract section 6 that show a change before it is made: the policy preview and the settings preview. */
import { previewPolicy, previewSettings } from '../../application/config/preview-changes';
import { json, jsonBodyOf, pathParameter } from '../http';
import type { ApiRoute } from './route';

const POLICY_PREVIEW_EXAMPLE = '{"scheduleOption": 1, "release": {"kind": "immediate"}, "actor": "finance@example.com", "reason": "trusted vendor", "applyTo": "open_orders"}';

export const PREVIEW_ROUTES: ApiRoute[] = [
  {
    method: 'POST',
    path: '/vendors/{vendorId}/policy/preview',
    run: async (e, deps) => json(200, await previewPolicy(
      await deps(), pathParameter(e, 'vendorId'), jsonBodyOf(e, POLICY_PREVIEW_EXAMPLE), e.queryStringParameters?.limit,
    )),
  },
  {
    method: 'POST',
    path: '/settings/preview',
    run: async (e, deps) => json(200, await previewSettings(await deps(), jsonBodyOf(e, '{"deferByDays": 10}'), e.queryStringParameters?.limit)),
  },
];
