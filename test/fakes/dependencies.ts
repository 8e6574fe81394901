/** One in-memory Holdback world for use-case tests: every port faked, each fake reachable for assertions. */
import type { Dependencies } from '../../functions/application/ports';
import { releaseVendor, type ReleaseVendorResult } from '../../functions/application/releases/release-vendor';
import { FakeClock } from './clock';
import { InMemoryAuditStore } from './audit';
import { Ed25519AuditKey } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { InMemoryPolicyImportRepository, InMemoryPreviewRepository } from './change-records';
import { StoredGatewayOrders } from './gateway-orders';
import { InMemoryReleaseReads } from './release-reads';
import { RecordingLogger, RecordingPublisher, RecordingQueue, RecordingScheduler, ScriptedGateway } from './outside-world';
import { InMemoryExportStore, InMemoryJobRepository, RunningJobQueue } from './jobs';
import { InMemoryApprovalRepository } from './approvals';
import { InMemoryExposureLedger } from './exposure-ledger';
import {
  InMemoryConfigReader, InMemoryHoldRepository, InMemoryOpenOrderPolicyRepository, InMemoryOrderRepository, InMemoryPolicyRepository, InMemoryRejectedEventRepository,
  InMemorySettingsRepository,
} from './repositories';

export const TEST_WEBHOOK_SECRET = 'test-webhook-secret';

export interface FakeWorld {
  deps: Dependencies;
  clock: FakeClock;
  settings: InMemorySettingsRepository;
  policies: InMemoryPolicyRepository;
  orders: InMemoryOrderRepository;
  rejected: InMemoryRejectedEventRepository;
  scheduler: RecordingScheduler;
  gateway: ScriptedGateway;
  gatewayOrders: StoredGatewayOrders;
  publisher: RecordingPublisher;
  queue: RecordingQueue;
  audit: InMemoryAuditStore;
  previews: InMemoryPreviewRepository;
  policyImports: InMemoryPolicyImportRepository;
  logger: RecordingLogger;
  holds: InMemoryHoldRepository;
  exposure: InMemoryExposureLedger;
  config: InMemoryConfigReader;
  openOrderPolicies: InMemoryOpenOrderPolicyRepository;
  jobs: InMemoryJobRepository;
  jobQueue: RunningJobQueue;
  exports: InMemoryExportStore;
  approvals: InMemoryApprovalRepository;
  /** Runs every step of every job started, as the jobs function would, until none is left. */
  runJobs(): Promise<void>;
  /** Runs every enqueued release command through the release use case, as the queue's consumer would, until none is left. */
  deliverQueued(): Promise<ReleaseVendorResult[]>;
  /** Fires every schedule due at the clock's time through the release use case, as Scheduler would. */
  fireDueSchedules(): Promise<ReleaseVendorResult[]>;
}

export function fakeWorld(start = '2022-12-02T16:00:00+05:30'): FakeWorld {
  const clock = new FakeClock(start);
  const world = {
    clock,
    settings: new InMemorySettingsRepository(clock),
    policies: new InMemoryPolicyRepository(),
    orders: new InMemoryOrderRepository(),
    rejected: new InMemoryRejectedEventRepository(),
    scheduler: new RecordingScheduler(),
    gateway: new ScriptedGateway(clock),
    gatewayOrders: new StoredGatewayOrders(),
    publisher: new RecordingPublisher(),
    queue: new RecordingQueue(),
    audit: new InMemoryAuditStore(clock),
    previews: new InMemoryPreviewRepository(),
    policyImports: new InMemoryPolicyImportRepository(),
    logger: new RecordingLogger(),
    holds: new InMemoryHoldRepository(),
    exposure: new InMemoryExposureLedger(),
    openOrderPolicies: new InMemoryOpenOrderPolicyRepository(),
    jobs: new InMemoryJobRepository(),
    jobQueue: new RunningJobQueue(),
    exports: new InMemoryExportStore(),
    approvals: new InMemoryApprovalRepository(),
  };
  // What the fake gateway applies, its order recon shows.
  world.gateway.applied = world.gatewayOrders.eligibilities;
  const config = new InMemoryConfigReader(world.settings, world.policies, world.holds, world.openOrderPolicies);
  const deps: Dependencies = {
    ...world, config, reads: new InMemoryReleaseReads(world.orders, world.policies), auditArchive: world.audit, auditKey: Ed25519AuditKey.inMemory(), secrets: { webhookSecret: async () => TEST_WEBHOOK_SECRET },
  };
  world.jobQueue.deps = deps;
  const deliverQueued = async (): Promise<ReleaseVendorResult[]> => {
    const results: ReleaseVendorResult[] = [];
    // Bounded: a release that keeps enqueueing itself would be a bug the test should see, not a hang.
    for (let round = 0; round < 100 && world.queue.waiting.length > 0; round++) {
      for (const command of world.queue.take()) results.push(await releaseVendor(deps, command));
    }
    return results;
  };
  return {
    ...world,
    config,
    deps,
    deliverQueued,
    runJobs: () => world.jobQueue.runAll(),
    async fireDueSchedules() {
      // Schedules target the release queue: each fired command is consumed like any other.
      const results: ReleaseVendorResult[] = [];
      for (const due of world.scheduler.takeDue(clock.now())) results.push(await releaseVendor(deps, due.command));
      results.push(...await deliverQueued());
      return results;
    },
  };
}
