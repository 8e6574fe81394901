/** Audit entries of the release state machine (contract 6.2): what each records, and that a failing log changes nothing. */
import { fakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';

test('a planning decision and each gateway attempt (request before it leaves, then its answer) are audited with order, vendor and actor; the last answer of a send carries its outcome', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  // A 502 may have been applied: retried at once through a new claim, which reads the order recon (it holds nothing).
  world.gateway.answerNext({ kind: 'response', httpStatus: 502, status: 'ERROR', subCode: '502', message: 'Bad gateway' });
  await send(world, 'order.paid', paid());

  const entries = world.audit.entries.filter((e) => e.orderId)
    .map((e) => [e.kind, e.orderId, e.vendorId, e.actor, e.detail.phase ?? e.detail.cause ?? null, e.detail.to ?? null]);
  expect(entries).toEqual([
    ['planned', ORDER, VENDOR, 'marketplace', 'payment', 'PLANNED'],
    ['gateway_attempt', ORDER, VENDOR, 'holdback', 'sent', null],
    ['gateway_attempt', ORDER, VENDOR, 'holdback', 'answered', 'SCHEDULED'],
    ['gateway_attempt', ORDER, VENDOR, 'holdback', 'sent', null],
    ['gateway_attempt', ORDER, VENDOR, 'holdback', 'answered', 'APPLIED'],
  ]);
  const attempts = world.audit.entries.filter((e) => e.kind === 'gateway_attempt');
  expect(attempts[0].detail).toEqual({ phase: 'sent', send: 1, attempt: 1, request: { eligibility: '2022-12-02 16:06:00', at: '2022-12-02T16:05:00+05:30' } });
  expect(attempts[1].detail).toEqual({
    phase: 'answered', send: 1, attempt: 1,
    request: { eligibility: '2022-12-02 16:06:00', at: '2022-12-02T16:05:00+05:30' },
    answer: { httpStatus: 502, status: 'ERROR', subCode: '502', message: 'Bad gateway' },
    meaning: { kind: 'retryable', reason: "gateway error (HTTP 502): Bad gateway (it may have been applied: the gateway's order recon is read before anything is sent again)", recompute: true },
    from: 'APPLYING', to: 'SCHEDULED', sendAt: '2022-12-02T16:05:00+05:30',
    reason: "retrying: gateway error (HTTP 502): Bad gateway (it may have been applied: the gateway's order recon is read before anything is sent again); send 2 at 2022-12-02T16:05:00+05:30",
  });
  expect(attempts[2].detail).toMatchObject({ phase: 'sent', send: 2, attempt: 1 });
  expect(attempts[3].detail).toMatchObject({ phase: 'answered', send: 2, answer: { status: 'OK' }, to: 'APPLIED' });
  expect(await release(world)).toMatchObject({ state: 'APPLIED', sends: 2 });
  expect(world.gateway.calls).toHaveLength(2);
  expect(world.gatewayOrders.recons).toHaveLength(1);
  expect(world.audit.entries.find((e) => e.kind === 'planned')!.detail).toMatchObject({ from: null, to: 'PLANNED', rule: { kind: 'immediate' }, policyVersion: 1, reason: expect.stringMatching(/^rule immediate: target 2022-12-02T16:00:00\+05:30; due now/) });
});

test('an audit log that fails never makes a release fail or send twice', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  world.audit.append = async () => { throw new Error('audit table throttled'); };

  await send(world, 'order.paid', paid());
  await world.deliverQueued();

  expect(world.gateway.calls).toHaveLength(1);
  expect(await release(world)).toMatchObject({ state: 'APPLIED' });
  expect(world.logger.lines.filter((l) => l.message === 'audit entries not appended').length).toBeGreaterThan(0);
});
