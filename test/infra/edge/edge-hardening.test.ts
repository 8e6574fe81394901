/** The edge against bad input and other web pages (issue 10.4, 10.6): deep details delivered safely, controls guarded. */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { MAX_NESTING_DEPTH, NESTED_TOO_DEEP, nestingDepth } from '../../../kit/nesting-depth';
import { rawRequest } from '../../raw-http';
import { MAX_BODY_BYTES } from '../../../kit/wire';
import { edgeWithBus, START } from '../local-edge';

const { clock, orderEvents, fixture: f } = edgeWithBus();

test('a detail nesting 40,000 levels is accepted as EventBridge would, and delivered cut to one level past the limit', async () => {
  const detail = `{"orderId":"order_deep","extra":${'['.repeat(40_000)}${']'.repeat(40_000)}}`;
  const answer = await f.events.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid', Detail: detail }] }));
  expect(answer.FailedEntryCount).toBe(0);
  await f.local.edge.idle();
  expect(f.local.edge.bus.failures).toEqual([]);
  const delivered = orderEvents.calls.at(-1)!.event as { detail: { orderId: string; extra: unknown } };
  expect(delivered.detail.orderId).toBe('order_deep');
  expect(nestingDepth(delivered.detail, 100)).toBe(MAX_NESTING_DEPTH + 1);
  expect(JSON.stringify(delivered.detail)).toContain(NESTED_TOO_DEEP);
  const listed = (await (await fetch(`${f.local.edge.url}/_local/events?detailType=order.paid`)).json()) as { events: { detail: { orderId: string } }[] };
  expect(listed.events.at(-1)!.detail.orderId).toBe('order_deep');
});

test('the clock refuses moves outside [2000, 2100), and changes from other web pages', async () => {
  expect((await f.local.setClock({ now: '9999-01-01T00:00:00Z' })).status).toBe(400);
  expect((await f.local.setClock({ now: '1999-12-31T23:59:59Z' })).body.error.field).toBe('now');
  expect((await f.local.setClock({ advance: 'P100000Y' })).body.error.field).toBe('advance');
  const textPlain = await rawRequest(f.local.edge.url, {
    method: 'POST', path: '/_local/clock', headers: { 'content-type': 'text/plain', origin: 'https://evil.example' }, body: '{"advance":"P1D"}',
  });
  expect(textPlain.status).toBe(403);
  const form = await rawRequest(f.local.edge.url, { method: 'POST', path: '/_local/clock', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'advance=P1D' });
  expect(form.status).toBe(415);
  const rebound = await rawRequest(f.local.edge.url, { method: 'GET', path: '/_local/events', headers: { host: 'rebind.example' } });
  expect(rebound.status).toBe(403);
  expect(clock.now().toMillis()).toBe(new Date(START).getTime());
});

test('a PutEvents declaring 1.5 GB is refused from its Content-Length, unread', async () => {
  const answer = await rawRequest(f.local.edge.url, {
    method: 'POST', path: '/', headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
    body: '{"Entries":', declaredLength: 1.5 * 1024 ** 3,
  });
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.text)).toEqual({ __type: 'ValidationException', message: `request body is larger than ${MAX_BODY_BYTES} bytes` });
});
