/**
 * What four eyes (contract 6.4, issue 20 item 5) adds to the bill, counted with the AWS call meter on the local stack:
 * the DynamoDB units of asking for an approval, listing the pending ones and approving (the change's own cost, a
 * manual release, measured without approvals and taken off), per approval; and what it adds to an order that nobody
 * changes by hand: nothing, checked by counting the approval items an ordinary order's flow touches.
 */
import { join } from 'node:path';
import { AwsCallTally } from './aws-call-meter';
import { PRICES } from './aws-prices';
import { startHarness } from '../test/e2e/harness';

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
/** An assumption for the per-million-orders figure: one order in a hundred released by hand through an approval. */
const APPROVALS_PER_MILLION_ORDERS = 10_000;

type Units = { writeUnits: number; indexWriteUnits: number; readUnits: number; apiRequests: number };

function unitsOf(tally: AwsCallTally, apiRequests: number): Units {
  return {
    writeUnits: tally.total('DynamoDB', 'writeUnits'),
    indexWriteUnits: tally.total('DynamoDB', 'indexWriteUnits'),
    readUnits: tally.total('DynamoDB', 'readUnits'),
    apiRequests,
  };
}

/** DynamoDB's price of the units, plus the HTTP API and Lambda requests of the API calls. */
function usd(u: Units): number {
  return ((u.writeUnits + u.indexWriteUnits) / 1e6) * PRICES.dynamodb.perMillionWriteUnits
    + (u.readUnits / 1e6) * PRICES.dynamodb.perMillionReadUnits
    + (u.apiRequests / 1e6) * (PRICES.apiGatewayHttp.perMillionRequests + PRICES.lambda.perMillionRequests);
}

/** The approval items and the state index's entries among a tally's writes and reads (zero on an order's own path). */
function approvalTouches(tally: AwsCallTally): number {
  const breakdown = tally.breakdown('DynamoDB');
  return Object.entries(breakdown).filter(([k]) => /APPROVAL|approvalsByState/.test(k) && /^(write|indexWrite)/.test(k)).reduce((n, [, v]) => n + v, 0);
}

export async function benchApprovals(changes = 40) {
  const tally = new AwsCallTally();
  const harness = await startHarness({ clientHook: join(__dirname, 'aws-call-meter.ts') });
  try {
    const vendorId = 'bench-ap-v1';
    await harness.createVendors([{ id: vendorId, scheduleOption: 1 }]);
    await harness.setPolicy(vendorId, { kind: 'at_max' });
    const orders = Array.from({ length: 2 * changes }, (_, i) => `bench-ap-${i + 1}`);
    for (const id of orders) {
      const at = await harness.createPaidOrder(id, [{ vendorId, amount: 1000 }]);
      await harness.send('order.paid', { orderId: id, transactionTime: at, vendors: [{ vendorId, amount: 1000 }] });
    }
    await harness.runtime.idle();
    const release = (orderId: string) => harness.api('POST', `/orders/${orderId}/vendors/${vendorId}/release`, { actor: 'maker@bench', reason: 'bench' });

    // The change's own cost: manual releases with no approval rule.
    tally.calls.clear();
    for (const id of orders.slice(0, changes)) if ((await release(id)).status !== 200) throw new Error(`release ${id} was not applied`);
    await harness.runtime.idle();
    const direct = unitsOf(tally, changes);

    const ruled = await harness.api('PUT', '/settings', { approvals: { manualRelease: {} }, actor: 'admin@bench', reason: 'bench' });
    if (ruled.status !== 200) throw new Error(`settings: ${JSON.stringify(ruled.body)}`);

    // Asking: the request validated, kept as an approval (with its state index entry), audited; 202.
    tally.calls.clear();
    const ids: string[] = [];
    for (const id of orders.slice(changes)) {
      const asked = await release(id);
      if (asked.status !== 202) throw new Error(`release ${id}: expected 202, got ${asked.status}`);
      ids.push(asked.body.approval.approvalId as string);
    }
    const ask = unitsOf(tally, changes);

    // Listing the pending ones: one query of the state index (a page of 50), never a scan.
    tally.calls.clear();
    const listed = await harness.api('GET', '/approvals?state=pending&limit=50');
    if (listed.body.items.length !== changes) throw new Error(`listed ${listed.body.items.length} of ${changes}`);
    const list = unitsOf(tally, 1);
    const scans = [...tally.calls.values()].filter((c) => c.service === 'DynamoDB' && c.operation === 'Scan').reduce((n, c) => n + c.calls, 0);

    // Approving: the decision (one conditional write moving the index entry), audited, then the same release applied.
    tally.calls.clear();
    for (const id of ids) if ((await harness.api('POST', `/approvals/${id}/approve`, { actor: 'checker@bench', reason: 'bench' })).status !== 200) throw new Error(`approve ${id}`);
    await harness.runtime.idle();
    const approve = unitsOf(tally, changes);

    // An ordinary order's flow with a rule in force touches no approval item.
    tally.calls.clear();
    for (let i = 0; i < 10; i++) {
      const id = `bench-ap-plain-${i}`;
      const at = await harness.createPaidOrder(id, [{ vendorId, amount: 1000 }]);
      await harness.send('order.paid', { orderId: id, transactionTime: at, vendors: [{ vendorId, amount: 1000 }] });
    }
    await harness.runtime.idle();
    const orderPathApprovalUnits = approvalTouches(tally);

    const per = (u: Units): Units => ({
      writeUnits: round(u.writeUnits / changes, 2), indexWriteUnits: round(u.indexWriteUnits / changes, 2), readUnits: round(u.readUnits / changes, 2), apiRequests: round(u.apiRequests / changes, 2),
    });
    const added: Units = {
      writeUnits: ask.writeUnits + approve.writeUnits - direct.writeUnits,
      indexWriteUnits: ask.indexWriteUnits + approve.indexWriteUnits - direct.indexWriteUnits,
      readUnits: ask.readUnits + approve.readUnits - direct.readUnits,
      apiRequests: changes, // the approve call; the ask replaces the direct call
    };
    const perApprovalUsd = usd(added) / changes;
    return {
      changes,
      perChange: { direct: per(direct), ask: per(ask), approve: per(approve), addedByApproval: per(added) },
      listPendingPage: { ...list, scans },
      usdPerMillionApprovals: round(perApprovalUsd * 1e6, 2),
      orderPathApprovalUnits,
      usdPerMillionOrders: {
        withoutHandChanges: 0,
        assumption: `${APPROVALS_PER_MILLION_ORDERS.toLocaleString('en')} approvals per million orders (one order in a hundred released by hand)`,
        atAssumption: round(perApprovalUsd * APPROVALS_PER_MILLION_ORDERS, 3),
      },
    };
  } finally {
    tally.close();
    await harness.close();
  }
}

export function approvalsLine(r: Awaited<ReturnType<typeof benchApprovals>>): string {
  const a = r.perChange.addedByApproval;
  return `four eyes, counted over ${r.changes} approved manual releases: +${a.writeUnits} WRU, +${a.indexWriteUnits} index WRU, +${a.readUnits} RRU and +${a.apiRequests} API request per approval`
    + ` = $${r.usdPerMillionApprovals} per million approvals; an order nobody changes by hand: ${r.orderPathApprovalUnits} approval units (+$0);`
    + ` at ${r.usdPerMillionOrders.assumption}: +$${r.usdPerMillionOrders.atAssumption} per million orders; a pending page: ${r.listPendingPage.readUnits} RRU, ${r.listPendingPage.scans} scans`;
}

export function approvalsTargets(r: Awaited<ReturnType<typeof benchApprovals>>) {
  return { approvalsReadWithoutScan: { target: 0, measured: r.listPendingPage.scans, met: r.listPendingPage.scans === 0 } };
}
