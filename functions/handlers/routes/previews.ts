/** Routes of contract section 6 that show a change before it is made: the policy preview and the settings preview. */
import { LISTED_RELEASES, previewPolicy, previewSettings } from '../../application/config/preview-changes';
import { json } from '../http';
import { ok, ref, responses } from '../schema/openapi-parts';
import { count, id } from '../schema/params';
import { defineRoute, jsonBody } from '../schema/route-schema';
import { POLICY_EXAMPLE } from './basics';
import type { ApiRoute } from './route';

const POLICY_PREVIEW_HINT = '{"scheduleOption": 1, "release": {"kind": "immediate"}, "actor": "finance@example.com", "reason": "trusted vendor", "applyTo": "open_orders"}';
const PREVIEW_LIMIT = count(0, LISTED_RELEASES.max, LISTED_RELEASES.default, 'Releases listed (perDay always covers every release).');

export const PREVIEW_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'POST', path: '/vendors/{vendorId}/policy/preview', summary: 'What a policy change would move, changing nothing',
    params: { vendorId: id('vendor_a') }, query: { limit: PREVIEW_LIMIT },
    body: jsonBody(ref('PolicyInput'), POLICY_EXAMPLE, POLICY_PREVIEW_HINT),
    responses: responses({ 200: ok("The vendor's unsent releases now and under the change, with totals per India-time day.", ref('Preview')) }, { 400: 'A field or limit is wrong.' }),
    handle: async ({ params, query, body }, deps) => json(200, await previewPolicy(await deps(), params.vendorId, body, query.limit)),
  }),
  defineRoute({
    method: 'POST', path: '/settings/preview', summary: 'What a settings change would move, changing nothing',
    query: { limit: PREVIEW_LIMIT },
    body: jsonBody(ref('Settings'), { deferByDays: 10 }),
    responses: responses({ 200: ok('Every unsent release it would move, and those the gateway would refuse.', ref('Preview')) }, { 400: 'A field or limit is wrong.' }),
    handle: async ({ query, body }, deps) => json(200, await previewSettings(await deps(), body, query.limit)),
  }),
];
