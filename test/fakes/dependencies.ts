/** One in-memory Holdback world for use-case tests: every port faked, each fake reachable for assertions. */
import type { Dependencies } from '../../functions/application/ports';
import { releaseVendor, type ReleaseVendorResult } from '../../functions/application/release-vendor';
import { FakeClock } from './clock';
import { StoredGatewayOrders } from './gateway-orders';
import { RecordingAuditLog, RecordingLogger, RecordingPublisher, RecordingQueue, RecordingScheduler, ScriptedGateway } from './outside-world';
import {
  InMemoryConfigReader, InMemoryOrderRepository, InMemoryPolicyRepository, InMemoryRejectedEventRepository,
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
  audit: RecordingAuditLog;
  logger: RecordingLogger;
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
    audit: new RecordingAuditLog(),
    logger: new RecordingLogger(),
  };
  const deps: Dependencies = {
    ...world, config: new InMemoryConfigReader(world.settings, world.policies), secrets: { webhookSecret: TEST_WEBHOOK_SECRET },
  };
  return {
    ...world,
    deps,
    async fireDueSchedules() {
      const results: ReleaseVendorResult[] = [];
      for (const due of world.scheduler.takeDue(clock.now())) results.push(await releaseVendor(deps, due.command));
      return results;
    },
  };
}
