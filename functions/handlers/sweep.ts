/** Flow: the periodic schedule (every minute) → sweep → overdue and stuck releases put on the release queue again. */
import middy from '@middy/core';
import { sweep, type SweepResult } from '../application/sweep';
import { maintainAuditLog } from '../application/maintain-audit-log';
import { lazyDependencies, nonSendingRuntimeDependencies, type DependencySource } from './dependencies';

export function makeSweepHandler(getDeps: DependencySource) {
  const deps = lazyDependencies(getDeps);
  return middy<unknown, SweepResult>().handler(async () => {
    const built = await deps();
    try {
      return await sweep(built);
    } finally {
      // The sweep function is the audit checkpoint writer; maintaining the log never throws.
      await maintainAuditLog(built);
    }
  });
}

export const handler = makeSweepHandler(nonSendingRuntimeDependencies);
