/** The first routes of contract section 6: health, settings, policies, one order, predictions, rejected events, webhook. */
import { listRejectedEvents } from '../../application/reads/list-rejected-events';
import { getPolicy, policyHistory, putPolicy } from '../../application/config/manage-policies';
import { getSettings, settingsHistory, updateSettings } from '../../application/config/manage-settings';
import { predictSettlementAt } from '../../application/reads/predict-settlement';
import { viewOrder } from '../../application/reads/view-order';
import { json, jsonBodyOf, pathParameter } from '../http';
import { GATEWAY_WEBHOOK_ROUTE } from './gateway-webhook';
import type { ApiRoute } from './route';

const POLICY_EXAMPLE = '{"scheduleOption": 1, "release": {"kind": "after_delivery", "delay": "P2D"}, "actor": "finance@example.com", "reason": "trusted vendor"}';

/** Health, settings, policies, one order, predictions, rejected events and the gateway webhook. */
export const BASIC_ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/health', run: async () => json(200, { status: 'ok' }) },
  { method: 'GET', path: '/settings', run: async (_e, deps) => json(200, await getSettings(await deps())) },
  { method: 'PUT', path: '/settings', run: async (e, deps) => json(200, await updateSettings(await deps(), jsonBodyOf(e, '{"deferByDays": 15}'))) },
  { method: 'GET', path: '/settings/history', run: async (_e, deps) => json(200, { versions: await settingsHistory(await deps()) }) },
  { method: 'GET', path: '/vendors/{vendorId}/policy', run: async (e, deps) => json(200, await getPolicy(await deps(), pathParameter(e, 'vendorId'))) },
  {
    method: 'PUT',
    path: '/vendors/{vendorId}/policy',
    run: async (e, deps) => json(200, await putPolicy(await deps(), pathParameter(e, 'vendorId'), jsonBodyOf(e, POLICY_EXAMPLE))),
  },
  {
    method: 'GET',
    path: '/vendors/{vendorId}/policy/history',
    run: async (e, deps) => {
      const vendorId = pathParameter(e, 'vendorId');
      return json(200, { vendorId, versions: await policyHistory(await deps(), vendorId) });
    },
  },
  { method: 'GET', path: '/orders/{orderId}', run: async (e, deps) => json(200, await viewOrder(await deps(), pathParameter(e, 'orderId'))) },
  {
    method: 'POST',
    path: '/predictions',
    run: async (e, deps) => json(200, await predictSettlementAt(await deps(), jsonBodyOf(e, '{"eligibility": "2022-12-06 09:00:00", "scheduleOption": 1}'))),
  },
  {
    method: 'GET',
    path: '/rejected-events',
    run: async (e, deps) => json(200, await listRejectedEvents(await deps(), { limit: e.queryStringParameters?.limit, cursor: e.queryStringParameters?.cursor })),
  },
  GATEWAY_WEBHOOK_ROUTE,
];

