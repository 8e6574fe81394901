/** Flow: the periodic schedule (every minute) → sweep → overdue and stuck releases re-driven through releaseVendor. */
import middy from '@middy/core';
import { sweep, type SweepResult } from '../application/sweep';
import { lazyDependencies, runtimeDependencies, type DependencySource } from './dependencies';

export function makeSweepHandler(getDeps: DependencySource) {
  const deps = lazyDependencies(getDeps);
  return middy<unknown, SweepResult>().handler(async () => sweep(await deps()));
}

export const handler = makeSweepHandler(runtimeDependencies);
