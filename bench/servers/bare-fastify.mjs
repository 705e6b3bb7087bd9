// Reference server: bare Fastify, nothing but routing and (for POST) the form parser.
// With BENCH_CANNED=<file> it also serves GET /canned: the status line aside, exactly the headers
// and body in that file (an answer of the service, captured), to show what sending those bytes costs.
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const app = Fastify({ logger: false });
await app.register(formbody);
app.get('/', async () => ({ hello: 'world' }));
app.post('/form', async (request) => ({ fields: Object.keys(request.body ?? {}).length }));
if (process.env.BENCH_CANNED) {
  const { headers, body } = JSON.parse(readFileSync(process.env.BENCH_CANNED, 'utf8'));
  app.get('/canned', (_request, reply) => reply.headers(headers).send(body));
}
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
