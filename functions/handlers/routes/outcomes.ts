/** Finance and auditors' read routes: outcomes (JSON pages or streamed CSV), forecasts, prediction accuracy. */
import { OUTCOME_CSV_COLUMNS, OUTCOME_LIMIT, outcomesCsv, parseOutcomeQuery, type OutcomeQuery } from '../../application/outcome-rows';
import { outcomesPage } from '../../application/reads/list-outcomes';
import { forecast, vendorForecast } from '../../application/reads/read-vendors';
import { HELD_SETTLING_LISTED, heldSettlingSoon } from '../../application/reads/held-settling';
import { predictionAccuracy } from '../../application/releases/settlement-accuracy';
import { RELEASE_STATES } from '../../domain/types';
import { json } from '../http';
import { ID, TOO_LARGE_ON_AWS, decimal, instant, nullable, ok, page, ref, responses } from '../schema/openapi-parts';
import { count, cursor, flag, id, ofQuery, optionalId, type Param } from '../schema/params';
import { DAY_FROM, DAY_TO, RANGE_FROM, RANGE_TO, rangeParam } from '../schema/ranges';
import { defineRoute } from '../schema/route-schema';
import { streamedResult } from '../streamed-body';
import type { ApiRoute } from './route';

/** Documented here; read together by parseOutcomeQuery (the route's readQuery), since a cursor belongs to its filters and CSV takes no page. */
const OUTCOME_QUERY: Record<string, Param<unknown>> = {
  vendorId: ofQuery('One vendor.', ID), orderId: ofQuery('One order.', ID),
  state: ofQuery('One state.', { type: 'string', enum: [...RELEASE_STATES] }),
  from: RANGE_FROM, to: RANGE_TO, by: ofQuery('Which time from/to range over.', { type: 'string', enum: ['transaction', 'applied', 'settled'], default: 'transaction' }),
  limit: ofQuery('Page size (JSON only; refused with format=csv).', { type: 'integer', minimum: OUTCOME_LIMIT.min, maximum: OUTCOME_LIMIT.max, default: OUTCOME_LIMIT.default }),
  cursor: ofQuery('From nextCursor of the previous page, with the same filters (JSON only; refused with format=csv).', { type: 'string' }),
  format: ofQuery('CSV streams every matching row.', { type: 'string', enum: ['json', 'csv'], default: 'json' }),
};

const ACCURACY_ROW = {
  type: 'object',
  required: ['scheduleOption', 'settled', 'asPredicted', 'maxDifferenceMinutes', 'predicted', 'unpredicted', 'unpredictedReasons'],
  properties: {
    scheduleOption: { type: 'integer' }, settled: { type: 'integer', description: 'Settlements reported in the range, predicted or not.' },
    asPredicted: { type: 'integer', description: 'Settled at the minute predicted before the settlement.' },
    maxDifferenceMinutes: { type: 'integer', description: 'Largest |settled - predicted| over the predicted ones, in minutes.' },
    predicted: { type: 'integer', description: 'Settlements that had a prediction before they happened.' },
    unpredicted: { type: 'integer', description: 'Settlements with no prediction before them (cancelled, held, waiting, not yet sent): never counted as predicted.' },
    unpredictedReasons: { type: 'array', items: { type: 'object', required: ['reason', 'count'], properties: { reason: { type: 'string' }, count: { type: 'integer' } } } },
  },
};

/** GET /outcomes: JSON pages or a streamed CSV. */
export const OUTCOMES_ROUTE: ApiRoute = defineRoute({
  method: 'GET', path: '/outcomes', summary: 'Releases for auditors: filters, cursor pages, JSON or CSV (contract 6.1)',
  query: OUTCOME_QUERY, readQuery: parseOutcomeQuery,
  responses: responses({
    200: {
      description: 'JSON page, or CSV with the columns of contract 6.1.',
      content: {
        'application/json': { schema: page('items', ref('Outcome')) },
        'text/csv': { schema: { type: 'string' }, example: `${OUTCOME_CSV_COLUMNS.join(',')}\r\n` },
      },
    },
  }, { 400: 'A query parameter is wrong (unknown, or a cursor of other filters); every one is named.', 413: TOO_LARGE_ON_AWS }),
  handle: async ({ query }, deps) => {
    const parsed = query as unknown as OutcomeQuery;
    if (parsed.format === 'json') return json(200, await outcomesPage(await deps(), parsed));
    return streamedResult(200, {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': 'attachment; filename="holdback-outcomes.csv"',
    }, outcomesCsv(await deps(), parsed.filter));
  },
});

/** Forecasts, prediction accuracy and held money settling (GET /vendors, which may ask the gateway, is vendors.ts'). */
export const FORECAST_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'GET', path: '/forecast', summary: 'Expected settlements per India-time day, firm and projected',
    query: { from: DAY_FROM, to: DAY_TO, vendorId: optionalId('One vendor.') },
    responses: responses({ 200: ok('Days.', ref('Forecast')) }, { 400: 'Bad range.' }),
    handle: async ({ query }, deps) => json(200, await forecast(await deps(), query)),
  }),
  defineRoute({
    method: 'GET', path: '/vendors/{vendorId}/forecast', summary: "A vendor's expected settlements per day",
    params: { vendorId: id('vendor_a') }, query: { from: DAY_FROM, to: DAY_TO },
    responses: responses({ 200: ok('Days.', ref('Forecast')) }, { 400: 'Bad vendor id or range.', 404: 'A vendor Holdback does not know (no order or policy names it).' }),
    handle: async ({ params, query }, deps) => json(200, await vendorForecast(await deps(), params.vendorId, query)),
  }),
  defineRoute({
    method: 'GET', path: '/reports/prediction-accuracy', summary: 'Predicted against actual settlement, per schedule option',
    query: { from: rangeParam('from', true, '2022-12-01'), to: rangeParam('to', true, '2022-12-31') },
    responses: responses({
      200: ok('The range (by settlement time) and one row per schedule option settled in it.', {
        type: 'object',
        required: ['from', 'to', 'scheduleOptions'],
        properties: { from: instant('Start of the range.'), to: instant('End of the range.'), scheduleOptions: { type: 'array', items: ACCURACY_ROW } },
      }),
    }, { 400: 'from or to missing or wrong.' }),
    handle: async ({ query }, deps) => json(200, await predictionAccuracy(await deps(), query)),
  }),
  defineRoute({
    method: 'GET', path: '/alerts/held-settling', summary: 'Held money the gateway settles anyway within holdWarning (contract 6.4)',
    description: 'A hold only stops an early release: at max eligibility the gateway settles whatever Holdback holds. Every HELD release whose settlement after its max eligibility falls within the settings\' holdWarning (default P2D), soonest first; the overview shows it as an alert.',
    query: { vendorId: optionalId('One vendor.'), limit: count(HELD_SETTLING_LISTED.min, HELD_SETTLING_LISTED.max, HELD_SETTLING_LISTED.default, 'Held releases listed, soonest first (count and totals always cover every one).') },
    responses: responses({
      200: ok('The alert.', {
        type: 'object', required: ['holdWarning', 'until', 'items', 'count', 'omitted', 'totals'],
        properties: {
          holdWarning: { type: 'string', example: 'P2D' }, until: instant('Held money settling until this instant is listed.'),
          items: { type: 'array', items: { type: 'object', required: ['orderId', 'vendorId', 'amount', 'currency', 'holdReason', 'holdSource', 'maxEligibility', 'settlesAnywayAt'], properties: { orderId: ID, vendorId: ID, amount: decimal('Held.'), currency: { type: 'string' }, holdReason: nullable({ type: 'string', enum: ['dispute', 'vendor_hold'] }), holdSource: ref('HoldSource'), maxEligibility: instant('Its max eligibility.'), settlesAnywayAt: instant('When the gateway settles it anyway.') } } },
          count: { type: 'integer', description: 'Held releases settling within holdWarning, listed or not.' },
          omitted: { type: 'integer', description: 'Of those, how many limit left out of items.' },
          totals: { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, count: { type: 'integer' }, amount: decimal('Per currency.') } } },
        },
      }),
    }, { 400: 'Bad vendor id or limit.' }),
    handle: async ({ query }, deps) => json(200, await heldSettlingSoon(await deps(), query.vendorId, query.limit)),
  }),
];

/** The reads' routes of this file. */
export const OUTCOME_ROUTES: ApiRoute[] = [OUTCOMES_ROUTE, ...FORECAST_ROUTES];
