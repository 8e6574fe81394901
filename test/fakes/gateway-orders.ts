/** A fake of the gateway's order lookup: orders put in by the test, failures scripted, every lookup recorded. */
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

  async fetchOrder(orderId: string): Promise<GatewayOrder | null> {
    this.lookups.push(orderId);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return this.orders.get(orderId) ?? null;
  }
}
