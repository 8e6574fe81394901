/** The first routes of contract section 6: health, settings, policies, one order, predictions, rejected events (their changes: config-changes.ts). */
import { listRejectedEvents, MAX_REJECTED_LIMIT, REJECTED_CURSOR_LIST } from '../../application/reads/list-rejected-events';
import { getPolicy, policyHistory } from '../../application/config/manage-policies';
import { getSettings, settingsHistory } from '../../application/config/manage-settings';
import { predictSettlementAt } from '../../application/reads/predict-settlement';
import { viewOrder } from '../../application/reads/show-order';
import { ValidationError, instantBoundsIssue } from '../../domain/errors';
import { parseEligibilityInput } from '../../domain/dates';
import { SCHEDULE_OPTIONS, isScheduleOption } from '../../domain/schedule-options';
import { json } from '../http';
import { ID, instant, ok, page, ref, responses } from '../schema/openapi-parts';
import { count, cursor, id } from '../schema/params';
import { objectBody } from '../../application/body-schema';
import { defineRoute } from '../schema/route-schema';
import { HEALTH_ROUTE } from './health';
import type { ApiRoute } from './route';

const vendorId = { vendorId: id('vendor_a') };

/** POST /predictions: an eligibility in either of the gateway's forms, and a schedule option (default: the settings'). */
const PREDICTION_BODY = objectBody({
  fields: {
    eligibility: {
      schema: { type: 'string', description: 'Gateway form (India time) or ISO 8601 with an offset from -12:00 to +14:00; from 2000-01-01 to before 2100-01-01.' },
      required: true,
      read: (value, field) => {
        const eligibility = parseEligibilityInput(value, field);
        const outOfBounds = instantBoundsIssue(eligibility, field, null);
        if (outOfBounds) throw new ValidationError([outOfBounds]);
        return eligibility;
      },
    },
    scheduleOption: {
      schema: { type: 'integer', description: "The gateway's schedule option id; absent: the settings' default option." },
      read: (value, field): number | undefined => {
        if (value === undefined || isScheduleOption(value)) return value as number | undefined;
        throw new ValidationError([{ field, problem: `is ${JSON.stringify(value)}, not a schedule option of the gateway`, expected: `one of ${SCHEDULE_OPTIONS.map((o) => o.id).join(', ')}` }]);
      },
    },
  },
  example: { eligibility: '2022-12-06 09:00:00', scheduleOption: 1 },
  unknownMember: 'only eligibility, scheduleOption',
});

/** Health, settings, policies, one order, predictions and rejected events (the gateway webhook's route follows them in ROUTES). */
export const BASIC_ROUTES: ApiRoute[] = [
  HEALTH_ROUTE,
  defineRoute({
    method: 'GET', path: '/settings', summary: 'Settings in force',
    description: 'The settings every plan reads now, with their version (a PUT names it as `version`), and who saved them, when and why (`actor`, `at`, `reason`).',
    responses: responses({ 200: ok('Current settings.', ref('Settings')) }),
    handle: async (_r, deps) => json(200, await getSettings(await deps())),
  }),
  defineRoute({
    method: 'GET', path: '/settings/history', summary: 'Every saved settings version, newest first',
    responses: responses({ 200: ok('Versions.', { type: 'object', properties: { versions: { type: 'array', items: ref('Settings') } } }) }),
    handle: async (_r, deps) => json(200, { versions: await settingsHistory(await deps()) }),
  }),
  defineRoute({
    method: 'GET', path: '/vendors/{vendorId}/policy', summary: "A vendor's policy", params: vendorId,
    responses: responses({ 200: ok('Policy (version 0: the default).', ref('Policy')) }, { 400: 'Bad vendor id.' }),
    handle: async ({ params }, deps) => json(200, await getPolicy(await deps(), params.vendorId)),
  }),
  defineRoute({
    method: 'GET', path: '/vendors/{vendorId}/policy/history', summary: 'Every policy version, newest first', params: vendorId,
    responses: responses({ 200: ok('Versions.', { type: 'object', properties: { vendorId: ID, versions: { type: 'array', items: ref('Policy') } } }) }, { 400: 'Bad vendor id.' }),
    handle: async ({ params }, deps) => json(200, { vendorId: params.vendorId, versions: await policyHistory(await deps(), params.vendorId) }),
  }),
  defineRoute({
    method: 'GET', path: '/orders/{orderId}', summary: 'One order and each vendor release, with why', params: { orderId: id('order_1001') },
    responses: responses({ 200: ok('The order.', ref('Order')) }, { 400: 'Bad order id.', 404: 'Nothing is known of this order.' }),
    handle: async ({ params }, deps) => json(200, await viewOrder(await deps(), params.orderId)),
  }),
  defineRoute({
    method: 'POST', path: '/predictions', summary: 'When an eligibility settles under a schedule option',
    body: PREDICTION_BODY,
    responses: responses({ 200: ok('The settlement slot.', { type: 'object', required: ['settlementAt'], properties: { settlementAt: instant('First slot after the eligibility.') }, additionalProperties: false }) }, { 400: 'A field is wrong.' }),
    handle: async ({ body }, deps) => json(200, await predictSettlementAt(await deps(), body)),
  }),
  defineRoute({
    method: 'GET', path: '/rejected-events', summary: 'Malformed events and why, newest arrival first',
    description: 'Order events refused or kept without effect, signed gateway webhooks refused (400), and vendor settlements (VENDOR_SETTLEMENT_SUCCESS) that match no release: an unknown order, a vendor outside the order, no single order_id and vendor_id. Those settlements are still acknowledged 200 to the gateway (it would only deliver them again); source "gateway.webhook".',
    query: { limit: count(1, MAX_REJECTED_LIMIT, 100, 'Page size.'), cursor: cursor(REJECTED_CURSOR_LIST) },
    responses: responses({ 200: ok('A page.', page('rejectedEvents', { type: 'object', properties: { sequence: { type: 'integer', description: 'Its number in the order of arrival, from 1.' }, at: instant('When it was refused.') }, additionalProperties: true }, { count: { type: 'integer', description: 'Rejected in all, not only on this page.' } })) }, { 400: 'Bad limit or cursor.' }),
    handle: async ({ query }, deps) => json(200, await listRejectedEvents(await deps(), { limit: query.limit, after: query.cursor })),
  }),
];
