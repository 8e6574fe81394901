/** A fake of the gateway's order lookup: orders put in by the test, failures scripted, every lookup recorded. */
import { Instant } from '../../functions/domain/instant';
import type { GatewayOrder, GatewayOrders } from '../../functions/application/ports';

export class StoredGatewayOrders implements GatewayOrders {
  readonly lookups: string[] = [];
  private readonly orders = new Map<string, GatewayOrder>();
  private readonly failures: Error[] = [];

  /** The gateway's order as the lookup returns it (amounts as decimal text). */
  put(orderId: string, order: GatewayOrder): void {
    this.orders.set(orderId, order);
  }

  /** The next lookups throw these, as the adapter does when the gateway cannot be asked. */
  failNext(...errors: Error[]): void {
    this.failures.push(...errors);
  }

  /** The eligibility each order's vendor holds at the gateway, as its order recon shows it (ISO 8601 with offset). */
  readonly eligibilities = new Map<string, string>();
  readonly recons: Array<{ orderId: string; vendorId: string }> = [];

  /** The order recon's eligibility of one vendor; failures scripted by failNext as for the order lookup. */
  async fetchEligibility(orderId: string, vendorId: string): Promise<Instant | null> {
    this.recons.push({ orderId, vendorId });
    const failure = this.failures.shift();
    if (failure) throw failure;
    const held = this.eligibilities.get(`${orderId}/${vendorId}`);
    return held === undefined ? null : Instant.parse(held, 'settlement_eligibility_date');
  }

  async fetchOrder(orderId: string): Promise<GatewayOrder | null> {
    this.lookups.push(orderId);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return this.orders.get(orderId) ?? null;
  }
}
