/**
 * Flow: the periodic schedule (every minute) → sweep → overdue and stuck releases put on the release queue again;
 * four-eyes approvals past their 24 hours expired; the audit log maintained.
 */
import middy from '@middy/core';
import { sweep, type SweepResult } from '../application/releases/sweep';
import { heldSettlingSoon } from '../application/reads/held-settling';
import { maintainAuditLog } from '../application/audit/maintain-audit-log';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/sweep';
import { expireOverdue } from '../application/approvals/manage-approvals';
import { describeError } from '../application/errors';
import { lambdaMetrics, handlerDependencies, observeSweep, observed, type HandlerMetrics } from './observability';

/** The minute of each UTC hour at which the sweep counts held money settling within holdWarning (the HeldSettlingSoon metric). */
export const HELD_SETTLING_MINUTE = 0;

export function makeSweepHandler(getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<unknown, SweepResult>().use(observed(metrics)).handler(async () => {
    const built = await deps();
    try {
      const result = await sweep(built);
      if (metrics) observeSweep(metrics, result);
      if (metrics && new Date(built.clock.now().ms).getUTCMinutes() === HELD_SETTLING_MINUTE) metrics.record('heldSettlingSoon', (await heldSettlingSoon(built, undefined, 0)).count);
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

export const handler = makeSweepHandler(awsRuntime('sweep', composition), lambdaMetrics());
