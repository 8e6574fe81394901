/** Issue 10.6: which requests the local servers refuse, header by header. */
import { isLoopbackHost, loopbackRefusal } from '../../kit/loopback-guard';

const rules = { port: 4566, formsAllowed: false };
const post = (headers: Record<string, string>) => loopbackRefusal({ method: 'POST', headers }, rules)?.code ?? null;

describe('the loopback guard', () => {
  it('answers the loopback names with this port (or none), nothing else', () => {
    for (const host of ['127.0.0.1:4566', 'localhost:4566', '[::1]:4566', 'LOCALHOST:4566', 'localhost']) expect(isLoopbackHost(host, 4566)).toBe(true);
    for (const host of ['evil.example:4566', '127.0.0.1:4000', '127.0.0.2:4566', 'localhost.evil.example:4566', '[::2]:4566', '']) expect(isLoopbackHost(host, 4566)).toBe(false);
    expect(loopbackRefusal({ method: 'GET', headers: { host: 'rebind.example:4566' } }, rules)?.status).toBe(403);
  });

  it('lets programs through: the AWS SDK\'s x-amz-json and JSON without an Origin, and bodiless posts', () => {
    expect(post({ host: '127.0.0.1:4566', 'content-type': 'application/x-amz-json-1.1' })).toBeNull();
    expect(post({ host: '127.0.0.1:4566', 'content-type': 'application/x-amz-json-1.0' })).toBeNull();
    expect(post({ host: '127.0.0.1:4566', 'content-type': 'application/json' })).toBeNull();
    expect(post({ host: '127.0.0.1:4566' })).toBeNull();
  });

  it('refuses another origin, a cross-site fetch without an Origin, and the content types any page sends', () => {
    expect(post({ origin: 'https://evil.example', 'content-type': 'application/json' })).toBe('cross_origin_refused');
    expect(post({ origin: 'null' })).toBe('cross_origin_refused');
    expect(post({ origin: 'http://127.0.0.1:4000' })).toBe('cross_origin_refused');
    expect(post({ 'sec-fetch-site': 'cross-site' })).toBe('cross_origin_refused');
    expect(post({ 'content-type': 'text/plain;charset=UTF-8' })).toBe('content_type_refused');
    expect(post({ 'content-type': 'application/x-www-form-urlencoded' })).toBe('content_type_refused');
    expect(post({ 'content-type': 'multipart/form-data; boundary=x' })).toBe('content_type_refused');
  });

  it('takes forms only where allowed, and then only from its own pages (under any loopback name)', () => {
    const form = (headers: Record<string, string>) => loopbackRefusal({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } }, { port: 4010, formsAllowed: true });
    expect(form({ origin: 'http://127.0.0.1:4010', 'sec-fetch-site': 'same-origin' })).toBeNull();
    expect(form({ origin: 'http://localhost:4010', 'sec-fetch-site': 'cross-site' })).toBeNull();
    expect(form({ origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' })?.code).toBe('cross_origin_refused');
  });
});
