import { connect } from 'node:net';
import { nestingDepthExceeds } from '../../src/platform/http/validation';
import { startTestApp, TestApp } from '../support/test-app';

/** Raw HTTP over a socket: what Node's parser refuses before any framework code runs. */
function rawRequest(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  });
}

describe('HTTP edge cases answer with HubSpot Error bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [], listen: true });
  });
  afterAll(() => t.close());

  it.each([
    ['a NUL in the request line', 'GET /admin/v1/acc\u0000ounts HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a space in the path', 'GET /admin/v1/a b HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a NUL in a header', 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400],
    ['headers over the limit', `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('%s', async (_name, text, status) => {
    const response = await rawRequest(t.url, text);
    expect(response.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, string>;
    expect(body).toMatchObject({ status: 'error', category: expect.any(String), message: expect.any(String) });
    expect(body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response).toContain(`X-HubSpot-Correlation-Id: ${body.correlationId}`);
  });

  // Issue 41 item 12: the router refuses these before any route or hook runs; they are still
  // HubSpot's Error with the correlation id in the body and the header, and never echo the path.
  it.each([
    ['a malformed percent-encoding in a path parameter', '/admin/v1/accounts/%zz', 400, 'VALIDATION_ERROR'],
    ['a truncated UTF-8 sequence', '/oauth/v1/access-tokens/%E0%A4%A', 400, 'VALIDATION_ERROR'],
    ['a lone percent sign on an unknown route', '/nope/%', 400, 'VALIDATION_ERROR'],
    ['a path parameter over the router bound', `/admin/v1/accounts/${'s3cr3t'.repeat(400)}`, 414, 'URI_TOO_LONG'],
  ])('%s', async (_name, path, status, category) => {
    const response = await fetch(t.url + path);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'error', category, message: expect.any(String) });
    expect(body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-hubspot-correlation-id')).toBe(body.correlationId);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(String(body.message)).not.toMatch(/body/i);
    expect(text).not.toContain('s3cr3t');
    if (status === 400) expect(body.errors).toEqual([expect.objectContaining({ in: 'path' })]);
  });

  it('a JSON body nested thousands of levels deep is a 400, not a stack overflow', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const r = await t.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: deep,
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'body', code: 'TOO_DEEP' }] });
  });
});

describe('nestingDepthExceeds', () => {
  it('counts object and array levels without recursion', () => {
    expect(nestingDepthExceeds({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestingDepthExceeds({ a: { b: [{}] } }, 3)).toBe(true);
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(nestingDepthExceeds(v, 32)).toBe(true);
  });
});
