/** The audit log's routes (contract 6.2): verification, export as JSON lines, the public key; and an order's timeline. */
import { auditPublicKey, auditPublicKeys, exportAuditLog, listAuditCheckpoints, proveAuditStream, verifyAuditLog } from '../../application/audit/audit-log-views';
import { viewOrderTimeline } from '../../application/reads/view-order-timeline';
import { json, pathParameter } from '../http';
import { streamedResult } from '../streamed-body';
import type { ApiRoute } from './route';

export const AUDIT_ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/audit/verify', run: async (_e, deps) => json(200, await verifyAuditLog(await deps())) },
  {
    method: 'GET',
    path: '/audit/export',
    run: async (e, deps) => streamedResult(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="holdback-audit.ndjson"',
    }, await exportAuditLog(await deps(), { ...(e.queryStringParameters ?? {}) })),
  },
  {
    method: 'GET',
    path: '/audit/public-key',
    run: async (_e, deps) => ({ statusCode: 200, headers: { 'content-type': 'application/x-pem-file' }, body: await auditPublicKey(await deps()) }),
  },
  { method: 'GET', path: '/audit/checkpoints', run: async (e, deps) => json(200, await listAuditCheckpoints(await deps(), { ...(e.queryStringParameters ?? {}) })) },
  { method: 'GET', path: '/audit/public-keys', run: async (_e, deps) => json(200, await auditPublicKeys(await deps())) },
  { method: 'GET', path: '/audit/proof', run: async (e, deps) => json(200, await proveAuditStream(await deps(), { ...(e.queryStringParameters ?? {}) })) },
  { method: 'GET', path: '/orders/{orderId}/timeline', run: async (e, deps) => json(200, await viewOrderTimeline(await deps(), pathParameter(e, 'orderId'))) },
];
