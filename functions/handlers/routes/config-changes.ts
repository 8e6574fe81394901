/** The settings' and a vendor policy's changes (contract section 6): each a new version, in force from its answer. */
import { putPolicy } from '../../application/config/manage-policies';
import { updateSettings } from '../../application/config/manage-settings';
import { json } from '../http';
import { APPROVAL_REQUIRED, nullable, ok, ref, responses } from '../schema/openapi-parts';
import { id } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import { POLICY_BODY, SETTINGS_BODY } from '../schema/config-bodies';
import type { ApiRoute } from './route';

const vendorId = { vendorId: id('vendor_a') };

/**
 * PUT /settings and PUT /vendors/{vendorId}/policy. In the route list they follow basics.ts' reads of the same paths,
 * so the OpenAPI document lists them as before (each path where its first route is, its methods in that order).
 */
export const CONFIG_CHANGE_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'PUT', path: '/settings', summary: 'Change settings (new version)',
    body: SETTINGS_BODY,
    responses: responses({ 200: ok('The saved version, in force from this answer (every release is planned under it when it is claimed); `job` is null: no per-release work remains.', ref('SettingsAnswer')), 202: APPROVAL_REQUIRED }, { 400: 'A field is wrong; the message names it.', 409: 'Stale `version` or `previewId` (preview_stale).' }),
    handle: async ({ body }, deps) => json(200, await updateSettings(await deps(), body)),
  }),
  defineRoute({
    method: 'PUT', path: '/vendors/{vendorId}/policy', summary: "Change a vendor's policy (new version)", params: vendorId,
    body: POLICY_BODY,
    responses: responses({ 200: ok('The saved version, with `job`: with applyTo open_orders, the job that plans every open release again (in force from this answer: a release claimed after it is planned under the new version instead of sent under the old); null otherwise or when no release is open.', { allOf: [ref('Policy'), { type: 'object', required: ['job'], properties: { job: nullable(ref('Job')) } }] }), 202: APPROVAL_REQUIRED }, { 400: 'A field is wrong.', 409: 'Stale expectedVersion, or preview_stale.' }),
    handle: async ({ params, body }, deps) => json(200, await putPolicy(await deps(), params.vendorId, body)),
  }),
];
