/** Finance and auditors' read routes: outcomes (JSON pages or streamed CSV), vendors, forecasts, prediction accuracy. */
import { outcomesCsv, outcomesPage, parseOutcomeQuery } from '../../application/reads/query-outcomes';
import { forecast, listVendors, vendorForecast } from '../../application/reads/read-vendors';
import { heldSettlingSoon } from '../../application/reads/held-settling';
import { requireId } from '../../application/ids';
import { predictionAccuracy } from '../../application/releases/settlement-accuracy';
import { json, pathParameter, type ApiEvent } from '../http';
import { streamedResult } from '../streamed-body';
import type { ApiRoute } from './route';

const query = (e: ApiEvent): Record<string, string | undefined> => ({ ...(e.queryStringParameters ?? {}) });

const optionalVendor = (e: ApiEvent): string | undefined => {
  const vendorId = e.queryStringParameters?.vendorId;
  return vendorId === undefined ? undefined : requireId(vendorId, 'vendorId');
};

export const OUTCOME_ROUTES: ApiRoute[] = [
  {
    method: 'GET',
    path: '/outcomes',
    run: async (e, deps) => {
      const parsed = parseOutcomeQuery(query(e));
      if (parsed.format === 'json') return json(200, await outcomesPage(await deps(), parsed));
      return streamedResult(200, {
        'content-type': 'text/csv; charset=utf-8; header=present',
        'content-disposition': 'attachment; filename="holdback-outcomes.csv"',
      }, outcomesCsv(await deps(), parsed.filter));
    },
  },
  { method: 'GET', path: '/vendors', run: async (e, deps) => json(200, await listVendors(await deps(), query(e))) },
  { method: 'GET', path: '/forecast', run: async (e, deps) => json(200, await forecast(await deps(), query(e))) },
  { method: 'GET', path: '/alerts/held-settling', run: async (e, deps) => json(200, await heldSettlingSoon(await deps(), optionalVendor(e))) },
  {
    method: 'GET',
    path: '/vendors/{vendorId}/forecast',
    run: async (e, deps) => json(200, await vendorForecast(await deps(), pathParameter(e, 'vendorId'), query(e))),
  },
  {
    method: 'GET',
    path: '/reports/prediction-accuracy',
    run: async (e, deps) => json(200, await predictionAccuracy(await deps(), query(e))),
  },
];
