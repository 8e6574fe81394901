/**
 * Flow: the periodic schedule (every minute) → sweep → overdue and stuck releases put on the release queue again;
 * four-eyes approvals past their 24 hours expired; the audit log maintained.
 */
import middy from '@middy/core';
import { sweep, type SweepResult } from '../application/releases/sweep';
import { maintainAuditLog } from '../application/audit/maintain-audit-log';
import { awsRuntime, type DependencySource } from './dependencies';
import { expireOverdue } from '../application/approvals/manage-approvals';
import { describeError } from '../application/errors';
import { lambdaMetrics, handlerDependencies, observeSweep, observed } from './observability';
import type { PowertoolsReleaseMetrics } from '../adapters/metrics/powertools-metrics';

export function makeSweepHandler(getDeps: DependencySource, metrics?: PowertoolsReleaseMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<unknown, SweepResult>().use(observed(metrics)).handler(async () => {
    const built = await deps();
    try {
      const result = await sweep(built);
      if (metrics) observeSweep(metrics, result);
      return result;
    } finally {
      await expireOverdue(built).catch((error: unknown) => {
        built.logger.error('expiring overdue approvals failed; the next sweep tries again', { error: describeError(error) });
      });
      // The sweep function is the audit checkpoint writer; maintaining the log never throws.
      const audit = await maintainAuditLog(built);
      const refused = audit.checkpoint?.refused.length ?? 0;
      if (metrics && refused > 0) metrics.record('auditHeadRefused', refused);
    }
  });
}

export const handler = makeSweepHandler(awsRuntime('sweep', () => import('../composition/sweep')), lambdaMetrics());
