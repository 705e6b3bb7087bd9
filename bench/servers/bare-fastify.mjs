// Reference server: bare Fastify, nothing but routing and (for POST) the form parser.
import formbody from '@fastify/formbody';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(formbody);
app.get('/', async () => ({ hello: 'world' }));
app.post('/form', async (request) => ({ fields: Object.keys(request.body ?? {}).length }));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
