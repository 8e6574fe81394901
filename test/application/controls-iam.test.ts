/**
 * Contract 6.4 "Who" and four eyes on AWS: requests signed with SigV4 by two principals (bin/signed-api.ts), checked by
 * an API Gateway-like IAM front that hands the handler payload 2.0 events with `requestContext.authorizer.iam`.
 */
import { VENDOR, usePolicy } from './scenario';
import { serveApiBehindIam, type IamPrincipal } from './iam-api';
import { principalName } from '../../functions/handlers/schema/caller';

const MAKER: IamPrincipal = {
  accessKeyId: 'AKIAMAKEREXAMPLE0001', secretAccessKey: 'maker-secret-example-key-000000000000000',
  userArn: 'arn:aws:sts::123456789012:assumed-role/HoldbackFinance/maker@example.com',
};
const CHECKER: IamPrincipal = {
  accessKeyId: 'AKIACHECKEREXAMPLE01', secretAccessKey: 'checker-secret-example-key-0000000000000',
  userArn: 'arn:aws:sts::123456789012:assumed-role/HoldbackChecker/checker@example.com',
};

/** The maker herself, signed in through the checker role: still the same person. */
const MAKER_AS_CHECKER: IamPrincipal = {
  accessKeyId: 'AKIAMAKERASCHECKER01', secretAccessKey: 'maker-checker-secret-example-key-000000',
  userArn: 'arn:aws:sts::123456789012:assumed-role/HoldbackChecker/maker@example.com',
};

const api = serveApiBehindIam([MAKER, CHECKER, MAKER_AS_CHECKER]);

async function call(who: IamPrincipal, method: string, path: string, body?: unknown) {
  const answer = await api.as(who).request({
    method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? JSON.parse(text) : null };
}

const records = () => [...api.world.audit.streams.values()].flat();

test('a principal\'s name is its session name (assumed role), its user name (IAM user), or root', () => {
  expect(principalName(MAKER.userArn)).toBe('maker@example.com');
  expect(principalName('arn:aws:iam::123456789012:user/alice')).toBe('alice');
  expect(principalName('arn:aws:iam::123456789012:root')).toBe('root');
});

test('a change without actor is recorded with the signer\'s name as actor and its principal on the audit record', async () => {
  await usePolicy(api.world, { kind: 'at_max' });
  const held = await call(MAKER, 'POST', `/vendors/${VENDOR}/hold`, { reason: 'fraud review' });
  expect(held).toMatchObject({ status: 200, body: { held: true, actor: 'maker@example.com' } });
  const hold = records().find((r) => r.kind === 'hold');
  expect(hold).toMatchObject({ actor: 'maker@example.com', principal: MAKER.userArn, vendorId: VENDOR });
  // The record's hash covers the principal: the chain still verifies.
  expect((await call(MAKER, 'GET', '/audit/verify')).body).toMatchObject({ ok: true });
});

test('an actor naming the signer (any letter case, or the whole ARN) is accepted; one naming someone else is 403 naming the field, and nothing changes', async () => {
  await usePolicy(api.world, { kind: 'at_max' });
  expect((await call(MAKER, 'POST', `/vendors/${VENDOR}/hold`, { actor: 'Maker@Example.com', reason: 'review' })).status).toBe(200);
  expect((await call(MAKER, 'POST', `/vendors/${VENDOR}/hold`, { actor: MAKER.userArn, reason: 'review' })).status).toBe(200);
  const before = records().length;
  const refused = await call(MAKER, 'POST', `/vendors/${VENDOR}/unhold`, { actor: 'checker@example.com', reason: 'cleared' });
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('actor_not_caller');
  expect(refused.body.error.message).toMatch(/^actor: is "checker@example.com", but this request is signed by arn:aws:sts::123456789012:assumed-role\/HoldbackFinance\/maker@example.com; send "maker@example.com"/);
  expect(records()).toHaveLength(before);
  expect((await api.world.holds.get(VENDOR))?.held).toBe(true);
});

test('a signed body that has no actor member (POST /predictions) is read as sent: no actor is filled in, so it is not refused as an unknown field', async () => {
  const predicted = await call(MAKER, 'POST', '/predictions', { eligibility: '2022-12-05 10:00:00', scheduleOption: 1 });
  expect(predicted).toMatchObject({ status: 200, body: { settlementAt: expect.any(String) } });
  // An actor sent there is still an unknown field (the body is closed), named as such.
  const extra = await call(MAKER, 'POST', '/predictions', { eligibility: '2022-12-05 10:00:00', actor: 'maker@example.com' });
  expect(extra).toMatchObject({ status: 400, body: { error: { issues: [expect.objectContaining({ field: 'actor', problem: 'is not a known field' })] } } });
});

test('a request with a bad signature never reaches Holdback (API Gateway\'s 403)', async () => {
  const forged = { ...MAKER, secretAccessKey: 'not-the-secret-0000000000000000000000000' };
  const answer = await call(forged, 'GET', '/settings');
  expect(answer.status).toBe(403);
  expect(api.refused).toEqual([expect.stringMatching(/^signature mismatch/)]);
});

test('four eyes with two principals: the maker\'s unhold waits (202), the maker cannot approve it (403), the checker\'s approval applies it; every step audited with its principal', async () => {
  await usePolicy(api.world, { kind: 'at_max' });
  expect((await call(MAKER, 'PUT', '/settings', { approvals: { unhold: {} }, reason: 'four eyes on unholds' })).status).toBe(200);
  await call(MAKER, 'POST', `/vendors/${VENDOR}/hold`, { reason: 'fraud review' });

  const asked = await call(MAKER, 'POST', `/vendors/${VENDOR}/unhold`, { reason: 'review cleared' });
  expect(asked.status).toBe(202);
  expect(asked.body.approval).toMatchObject({
    change: 'unhold', state: 'pending', vendorId: VENDOR, reason: 'review cleared',
    requestedBy: { actor: 'maker@example.com', principal: MAKER.userArn },
    createdAt: '2022-12-02T16:05:00+05:30', expiresAt: '2022-12-03T16:05:00+05:30',
  });
  expect((await api.world.holds.get(VENDOR))?.held).toBe(true);
  const id = asked.body.approval.approvalId as string;

  const own = await call(MAKER, 'POST', `/approvals/${id}/approve`, { reason: 'looks fine' });
  expect(own.status).toBe(403);
  expect(own.body.error).toMatchObject({ code: 'own_approval' });
  expect(own.body.error.message).toMatch(/you \(arn:aws:sts::123456789012:assumed-role\/HoldbackFinance\/maker@example.com\) asked for this change/);
  // Naming someone else as the approver does not get around it.
  expect((await call(MAKER, 'POST', `/approvals/${id}/approve`, { reason: 'x', actor: 'checker@example.com' })).status).toBe(403);
  // Nor does the maker signing in through the checker role: the same person (account and session name), another role.
  const ownAsChecker = await call(MAKER_AS_CHECKER, 'POST', `/approvals/${id}/approve`, { reason: 'now as checker' });
  expect(ownAsChecker.status).toBe(403);
  expect(ownAsChecker.body.error).toMatchObject({ code: 'own_approval' });

  const approved = await call(CHECKER, 'POST', `/approvals/${id}/approve`, { reason: 'evidence checked' });
  expect(approved.status).toBe(200);
  expect(approved.body.approval).toMatchObject({
    state: 'approved', decidedBy: { actor: 'checker@example.com', principal: CHECKER.userArn }, decisionReason: 'evidence checked', applied: { ok: true, error: null },
  });
  expect((await api.world.holds.get(VENDOR))?.held).toBe(false);

  const steps = records().filter((r) => r.vendorId === VENDOR && r.kind !== 'policy_changed' && r.kind !== 'hold')
    .map((r) => [r.kind, r.actor, r.principal]);
  expect(steps).toEqual([
    ['approval_requested', 'maker@example.com', MAKER.userArn],
    ['approval_approved', 'checker@example.com', CHECKER.userArn],
    ['unhold', 'maker@example.com', MAKER.userArn],
    ['approval_applied', 'checker@example.com', CHECKER.userArn],
  ]);
});

