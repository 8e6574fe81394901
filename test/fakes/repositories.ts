/** In-memory repositories with the real ones' rules: conditional versions, newest-first history, copies not references. */
import { copy } from './copy';
import type { Instant } from '../../functions/domain/instant';
import {
  VersionConflictError, type Clock, type ConfigReader, type OpenOrderPolicyRepository, type OrderRepository, type PlanningConfig, type PolicyRepository,
  type RejectedEventRepository, type SettingsRepository, type StoredOrder, type VendorHoldRepository,
} from '../../functions/application/ports';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type {
  OrderRecord, RejectedEvent, Settings, StoredEvent, VendorHold, VendorPolicy, VendorRelease, VersionedSettings,
} from '../../functions/domain/types';

/** What a store hands back is never the object it keeps, as with a real table. */
const millis = (at: Instant): number => at.ms;

export class InMemorySettingsRepository implements SettingsRepository {
  readonly versions: VersionedSettings[] = [];

  constructor(private readonly clock: Clock) {}

  async get(): Promise<VersionedSettings> {
    return this.inForce();
  }

  /** Not a port method: the config reader's view, kept off the port so tests that count port calls see only theirs. */
  inForce(): VersionedSettings {
    const latest = this.versions.at(-1);
    if (latest) return copy(latest);
    return { ...copy(DEFAULT_SETTINGS), version: 0, actor: 'system', reason: 'default settings', at: this.clock.now().in(DEFAULT_SETTINGS.timezone).wholeSecond() };
  }

  async save(settings: Settings, meta: { actor: string; reason: string; at: Instant; expectedVersion: number }): Promise<VersionedSettings> {
    const latest = this.versions.at(-1)?.version ?? 0;
    if (latest !== meta.expectedVersion) throw new VersionConflictError(`settings: version ${meta.expectedVersion} is not the latest (${latest})`);
    const saved: VersionedSettings = { ...copy(settings), version: latest + 1, actor: meta.actor, reason: meta.reason, at: meta.at };
    this.versions.push(saved);
    return copy(saved);
  }

  async history(): Promise<VersionedSettings[]> {
    return copy([...this.versions].reverse());
  }

  /** Test setup: settings in force without going through the API. */
  async use(settings: Partial<Settings>): Promise<void> {
    const current = await this.get();
    await this.save({ ...DEFAULT_SETTINGS, ...settings }, { actor: 'test', reason: 'setup', at: current.at, expectedVersion: current.version });
  }
}

export class InMemoryPolicyRepository implements PolicyRepository {
  private readonly byVendor = new Map<string, VendorPolicy[]>();

  async current(vendorId: string): Promise<VendorPolicy | null> {
    return this.inForce(vendorId);
  }

  /** Not a port method (see InMemorySettingsRepository.inForce). */
  inForce(vendorId: string): VendorPolicy | null {
    const versions = this.byVendor.get(vendorId);
    return versions?.length ? copy(versions.at(-1)!) : null;
  }

  async save(policy: VendorPolicy): Promise<VendorPolicy> {
    const versions = this.byVendor.get(policy.vendorId) ?? [];
    if (versions.some((p) => p.version === policy.version)) {
      throw new VersionConflictError(`policy ${policy.vendorId} version ${policy.version} exists`);
    }
    versions.push(copy(policy));
    versions.sort((a, b) => a.version - b.version);
    this.byVendor.set(policy.vendorId, versions);
    return copy(policy);
  }

  async history(vendorId: string): Promise<VendorPolicy[]> {
    return copy([...(this.byVendor.get(vendorId) ?? [])].reverse());
  }

  async version(vendorId: string, version: number): Promise<VendorPolicy | null> {
    return copy(this.byVendor.get(vendorId)?.find((p) => p.version === version) ?? null);
  }
}

/**
 * A step of a use case, awaited before each read or write of the fakes that take part in a race (orders, holds, config,
 * gateway): interleaving tests pause one use case there and run another.
 */
export type StepHook = ((step: string, subject: { orderId?: string; vendorId?: string }) => Promise<void>) | null;

/** Vendor holds by vendor, as the config table keeps them. */
export class InMemoryHoldRepository implements VendorHoldRepository {
  readonly byVendor = new Map<string, VendorHold>();
  beforeStep: StepHook = null;

  async get(vendorId: string): Promise<VendorHold | null> {
    await this.beforeStep?.('holds.get', { vendorId });
    return this.inForce(vendorId);
  }

  /** Not a port method (see InMemorySettingsRepository.inForce). */
  inForce(vendorId: string): VendorHold | null {
    return copy(this.byVendor.get(vendorId) ?? null);
  }

  async put(hold: VendorHold): Promise<void> {
    await this.beforeStep?.('holds.put', { vendorId: hold.vendorId });
    this.byVendor.set(hold.vendorId, copy(hold));
  }
}

/** The planner's read over the fakes above, as the real one reads them in one batch. */
export class InMemoryConfigReader implements ConfigReader {
  beforeStep: StepHook = null;

  constructor(
    private readonly settings: InMemorySettingsRepository,
    private readonly policies: InMemoryPolicyRepository,
    private readonly holds: InMemoryHoldRepository = new InMemoryHoldRepository(),
    private readonly openOrders: InMemoryOpenOrderPolicyRepository = new InMemoryOpenOrderPolicyRepository(),
  ) {}

  async forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig> {
    await this.beforeStep?.('config.forPlanning', { vendorId: vendorIds.join(',') });
    return {
      settings: this.settings.inForce(),
      policies: new Map(vendorIds.map((id) => [id, this.policies.inForce(id)])),
      holds: new Map(vendorIds.map((id) => [id, this.holds.inForce(id)])),
      openOrderPolicies: new Map(vendorIds.map((id) => [id, copy(this.openOrders.policies.get(id) ?? null)])),
    };
  }
}

export class InMemoryOpenOrderPolicyRepository implements OpenOrderPolicyRepository {
  readonly policies = new Map<string, VendorPolicy>();

  async put(policy: VendorPolicy): Promise<void> {
    const kept = this.policies.get(policy.vendorId);
    if (!kept || kept.version < policy.version) this.policies.set(policy.vendorId, copy(policy));
  }
}

export class InMemoryOrderRepository implements OrderRepository {
  readonly events = new Map<string, StoredEvent>();
  readonly orders = new Map<string, OrderRecord>();
  /** Orders whose events came before their payment (markAwaitingPayment). */
  readonly awaiting = new Set<string>();
  readonly releases = new Map<string, VendorRelease>();
  /** Every successful release write, in order (what a stream of the table would show). */
  readonly writes: VendorRelease[] = [];
  /** Runs before each putRelease's version check: lets a test slip in a concurrent writer. */
  beforePut: ((release: VendorRelease) => Promise<void> | void) | null = null;
  /** Runs before every read and write (see StepHook). */
  beforeStep: StepHook = null;

  private static key(orderId: string, vendorId: string): string {
    return `${orderId}\u0000${vendorId}`;
  }

  async recordEvent(event: StoredEvent): Promise<boolean> {
    await this.beforeStep?.('orders.recordEvent', { orderId: event.orderId });
    const key = `${event.orderId}\u0000${event.key}`;
    if (this.events.has(key)) return false;
    this.events.set(key, copy(event));
    return true;
  }

  async listEvents(orderId: string): Promise<StoredEvent[]> {
    return copy([...this.events.values()].filter((e) => e.orderId === orderId));
  }

  async loadOrder(orderId: string): Promise<StoredOrder> {
    await this.beforeStep?.('orders.loadOrder', { orderId });
    return copy({
      order: this.orders.get(orderId) ?? null,
      events: [...this.events.values()].filter((e) => e.orderId === orderId),
      releases: [...this.releases.values()].filter((r) => r.orderId === orderId),
    });
  }

  async getOrder(orderId: string): Promise<OrderRecord | null> {
    return copy(this.orders.get(orderId) ?? null);
  }

  async createOrder(order: OrderRecord): Promise<'new' | 'awaited' | 'exists'> {
    if (this.orders.has(order.orderId)) return 'exists';
    this.orders.set(order.orderId, copy(order));
    return this.awaiting.delete(order.orderId) ? 'awaited' : 'new';
  }

  async adoptGatewayPayment(order: OrderRecord): Promise<boolean> {
    const existing = this.orders.get(order.orderId);
    if (!existing || existing.transactionTimeSource === 'gateway') return false;
    this.orders.set(order.orderId, copy(order));
    return true;
  }

  async markAwaitingPayment(orderId: string): Promise<boolean> {
    if (this.orders.has(orderId)) return false;
    this.awaiting.add(orderId);
    return true;
  }

  async getRelease(orderId: string, vendorId: string): Promise<VendorRelease | null> {
    await this.beforeStep?.('orders.getRelease', { orderId, vendorId });
    return copy(this.releases.get(InMemoryOrderRepository.key(orderId, vendorId)) ?? null);
  }

  async listReleases(orderId: string): Promise<VendorRelease[]> {
    return copy([...this.releases.values()].filter((r) => r.orderId === orderId));
  }

  async putRelease(release: VendorRelease, expectedVersion: number | null): Promise<void> {
    if (this.beforePut) {
      const hook = this.beforePut;
      this.beforePut = null;
      await hook(release);
    }
    await this.beforeStep?.('orders.putRelease', { orderId: release.orderId, vendorId: release.vendorId });
    const key = InMemoryOrderRepository.key(release.orderId, release.vendorId);
    const stored = this.releases.get(key);
    if ((stored?.version ?? null) !== expectedVersion) {
      throw new VersionConflictError(`release ${release.orderId}/${release.vendorId}: expected ${expectedVersion}, found ${stored?.version ?? null}`);
    }
    this.releases.set(key, copy(release));
    this.writes.push(copy(release));
  }

  async listDue(before: Instant, limit: number): Promise<VendorRelease[]> {
    const until = millis(before);
    return copy([...this.releases.values()]
      .filter((r) => r.sendAt !== null && millis(r.sendAt) <= until)
      .sort((a, b) => millis(a.sendAt!) - millis(b.sendAt!))
      .slice(0, limit));
  }
}

export class InMemoryRejectedEventRepository implements RejectedEventRepository {
  readonly items: RejectedEvent[] = [];

  async add(rejected: RejectedEvent): Promise<void> {
    if (!this.items.some((r) => r.id === rejected.id)) this.items.push(copy(rejected));
  }

  /** Arrival order is the array's order; the position is the arrival number. */
  async page(opts: { limit: number; after?: string | null }): Promise<{ items: (RejectedEvent & { sequence: number })[]; next: string | null; count: number }> {
    const numbered = this.items.map((r, i) => ({ ...copy(r), sequence: i + 1 })).reverse();
    const rest = opts.after ? numbered.filter((r) => r.sequence < Number(opts.after)) : numbered;
    const items = rest.slice(0, opts.limit);
    return { items, next: rest.length > opts.limit ? String(items[items.length - 1].sequence) : null, count: this.items.length };
  }
}
