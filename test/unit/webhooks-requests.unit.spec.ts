import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESPONSE_BODY_KEPT, WebhookRequests, failureOf } from '../../src/app-webhooks/application/webhook-requests';
import { closedPort } from '../support/webhook-receiver';

/**
 * The delivery requests on node:http (webhook-requests.ts), against a server on 127.0.0.1: what the
 * dispatcher records of each answer, the failures HubSpot retries, no redirect followed, and the
 * kept-alive connection reused. The e2e suite covers them through the service.
 */
let server: Server;
let url = '';
let handle: (req: IncomingMessage, res: ServerResponse, body: string) => void;
const sockets = new Set<unknown>();
const requests = new WebhookRequests();

beforeAll(async () => {
  server = createServer((req, res) => {
    sockets.add(req.socket);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  requests.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => sockets.clear());

describe('WebhookRequests', () => {
  it('posts the body with the given headers and its length; keeps the first 1 KiB of the answer, reads it all', async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | null = null;
    handle = (req, res, body) => {
      seen = { headers: req.headers, body };
      res.writeHead(200, { 'content-type': 'text/plain' }).end('é'.repeat(3000));
    };
    const body = '[{"eventId":1,"propertyValue":"Zoë"}]';
    const answer = await requests.post(url, { 'Content-Type': 'application/json', 'User-Agent': 'ua' }, body, 2000);
    expect(answer).toEqual({
      statusCode: 200,
      retryAfter: null,
      responseBody: 'é'.repeat(RESPONSE_BODY_KEPT),
      error: null,
    });
    expect(seen!.body).toBe(body);
    expect(seen!.headers['user-agent']).toBe('ua');
    expect(seen!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('reuses the kept-alive connection for the next request to the same target', async () => {
    handle = (_req, res) => res.writeHead(204).end();
    for (let i = 0; i < 3; i++) expect((await requests.post(url, {}, '[]', 2000)).statusCode).toBe(204);
    expect(sockets.size).toBe(1);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const paths: string[] = [];
    handle = (req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(301, { Location: `${url}/elsewhere` }).end();
    };
    expect(await requests.post(url, {}, '[]', 2000)).toMatchObject({ statusCode: 301, error: null });
    expect(paths).toEqual(['/hooks']);
  });

  it('gives a 429 its Retry-After', async () => {
    handle = (_req, res) => res.writeHead(429, { 'Retry-After': '120' }).end('slow down');
    expect(await requests.post(url, {}, '[]', 2000)).toEqual({
      statusCode: 429,
      retryAfter: '120',
      responseBody: 'slow down',
      error: null,
    });
  });

  it('a receiver that does not answer in time: timeout; one that stops mid-body keeps its status, without a body', async () => {
    const open: ServerResponse[] = [];
    handle = (_req, res) => open.push(res);
    expect(await requests.post(url, {}, '[]', 100)).toEqual({
      statusCode: null,
      retryAfter: null,
      responseBody: null,
      error: 'timeout',
    });
    handle = (_req, res) => {
      res.writeHead(500, { 'content-length': '100' });
      res.write('partial');
      open.push(res);
    };
    expect(await requests.post(url, {}, '[]', 100)).toEqual({
      statusCode: 500,
      retryAfter: null,
      responseBody: null,
      error: null,
    });
    for (const res of open) res.destroy();
  });

  it('a refused connection, a reset and a bad URL are failures without a status', async () => {
    expect(await requests.post(`http://127.0.0.1:${await closedPort()}/hooks`, {}, '[]', 2000)).toMatchObject({
      statusCode: null,
      error: 'connection refused',
    });
    handle = (req) => req.socket.destroy();
    expect(await requests.post(url, {}, '[]', 2000)).toMatchObject({
      statusCode: null,
      error: 'connection failed (ECONNRESET)',
    });
    expect(await requests.post('not a url', {}, '[]', 2000)).toMatchObject({
      statusCode: null,
      error: 'connection failed (invalid URL)',
    });
    expect(failureOf(Object.assign(new AggregateError([{ code: 'ECONNREFUSED' }]), {}))).toBe('connection refused');
    expect(failureOf(new Error('socket hang up'))).toBe('connection failed (socket hang up)');
  });
});
