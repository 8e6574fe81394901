/** Flow: the periodic schedule (every minute) → sweep → overdue and stuck releases put on the release queue again. */
import middy from '@middy/core';
import { sweep, type SweepResult } from '../application/releases/sweep';
import { heldSettlingSoon } from '../application/reads/held-settling';
import { maintainAuditLog } from '../application/audit/maintain-audit-log';
import { nonSendingRuntimeDependencies, type DependencySource } from './dependencies';
import { lambdaMetrics, handlerDependencies, observeSweep, observed } from './observability';
import type { PowertoolsReleaseMetrics } from '../adapters/metrics/powertools-metrics';

/** The minute of each UTC hour at which the sweep counts held money settling within holdWarning (the HeldSettlingSoon metric). */
export const HELD_SETTLING_MINUTE = 0;

export function makeSweepHandler(getDeps: DependencySource, metrics?: PowertoolsReleaseMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<unknown, SweepResult>().use(observed(deps, metrics)).handler(async () => {
    const built = await deps();
    try {
      const result = await sweep(built);
      if (metrics) observeSweep(metrics, result);
      if (metrics && built.clock.now().toUTC().minute === HELD_SETTLING_MINUTE) metrics.record('heldSettlingSoon', (await heldSettlingSoon(built)).items.length);
      return result;
    } finally {
      // The sweep function is the audit checkpoint writer; maintaining the log never throws.
      const audit = await maintainAuditLog(built);
      const refused = audit.checkpoint?.refused.length ?? 0;
      if (metrics && refused > 0) metrics.record('auditHeadRefused', refused);
    }
  });
}

export const handler = makeSweepHandler(nonSendingRuntimeDependencies, lambdaMetrics());
