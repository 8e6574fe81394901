/**
 * The local bus's resource policy: the same rule lib/event-intake.ts gives the stack's bus on AWS, with access key ids
 * for principals (the local edge checks no signature; it reads who signed from the SigV4 `Credential`).
 *
 * - Order events (the marketplace's source): only the named producers (HOLDBACK_EVENT_PRODUCERS) and Holdback's own
 *   functions, for the order events they republish. With no producer named, any principal may put them, as any role of
 *   an account may on its default bus (the embedded default's `npm start` and its examples sign with `local`).
 * - Holdback's events (source `holdback`): Holdback's functions alone, and only the detail types they emit.
 *
 * A call with an entry the policy refuses fails whole with `AccessDeniedException`, as EventBridge answers a caller
 * that an explicit deny in the bus's resource-based policy refuses: nothing of it is accepted or delivered.
 */
import { EMITTED_EVENTS, HOLDBACK_EVENT_SOURCE, LOCAL_FUNCTIONS_ACCESS_KEY } from '../../functions/definitions/routing';

export interface BusPolicyOptions {
  /** The marketplace's order event source the rules route. */
  orderEventSource: string;
  /** Access key ids that may put order events; empty or absent: any principal may. */
  producers?: readonly string[];
}

const union = (pick: (e: (typeof EMITTED_EVENTS)[keyof typeof EMITTED_EVENTS]) => readonly string[]) =>
  new Set(Object.values(EMITTED_EVENTS).flatMap(pick));

export class BusPolicy {
  private readonly producers: ReadonlySet<string>;
  /** Locally every function signs as one principal, so it may put what any of them emits. */
  private readonly holdbackTypes = union((e) => e.holdback);
  private readonly republished = union((e) => e.order);

  constructor(private readonly opts: BusPolicyOptions) {
    this.producers = new Set(opts.producers ?? []);
  }

  /** Who signed a request: the access key id of its SigV4 Authorization header (null when unsigned). */
  static principalOf(authorization: string | undefined): string | null {
    const match = /Credential=([^/,\s]+)\//.exec(authorization ?? '');
    return match ? match[1] : null;
  }

  /** The refusal of one entry (null when allowed): the message EventBridge gives an explicit deny. */
  refusal(principal: string | null, entry: { Source?: unknown; DetailType?: unknown }, busArn: string): string | null {
    const source = typeof entry.Source === 'string' ? entry.Source : '';
    const detailType = typeof entry.DetailType === 'string' ? entry.DetailType : '';
    const holdback = principal === LOCAL_FUNCTIONS_ACCESS_KEY;
    let allowed = true;
    if (source === HOLDBACK_EVENT_SOURCE) allowed = holdback && this.holdbackTypes.has(detailType);
    else if (source === this.opts.orderEventSource) {
      allowed = holdback ? this.republished.has(detailType) : this.producers.size === 0 || (principal !== null && this.producers.has(principal));
    }
    if (allowed) return null;
    return `User: ${principal ?? 'anonymous'} is not authorized to perform: events:PutEvents on resource: ${busArn} ` +
      `with an explicit deny in a resource-based policy (source ${JSON.stringify(source)}, detail-type ${JSON.stringify(detailType)}: ` +
      (source === HOLDBACK_EVENT_SOURCE
        ? "only Holdback's functions put source holdback)"
        : `only the producers named by HOLDBACK_EVENT_PRODUCERS put order events; sign with one of their access key ids)`);
  }
}
