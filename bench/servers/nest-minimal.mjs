// Reference server: NestJS on its Fastify adapter with one controller and nothing else of ours —
// the ceiling the requested stack itself sets (Nest's router, its pipeline and its Fastify hooks).
// With BENCH_CANNED=<file> it also serves GET /canned: exactly the headers and body in that file
// (an answer of the service, captured), as bench/servers/bare-fastify.mjs does.
// Decorators are applied as functions so that this file runs as plain JavaScript.
import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';

const canned = process.env.BENCH_CANNED ? JSON.parse(readFileSync(process.env.BENCH_CANNED, 'utf8')) : undefined;

class ReferenceController {
  hello() {
    return { hello: 'world' };
  }

  form(body) {
    return { fields: Object.keys(body ?? {}).length };
  }

  canned(reply) {
    if (!canned) return reply.code(404).send();
    return reply.headers(canned.headers).send(canned.body);
  }
}
const member = (name) => [
  ReferenceController.prototype,
  name,
  Object.getOwnPropertyDescriptor(ReferenceController.prototype, name),
];
Controller()(ReferenceController);
Get('/')(...member('hello'));
Post('/form')(...member('form'));
HttpCode(200)(...member('form'));
Body()(ReferenceController.prototype, 'form', 0);
Get('/canned')(...member('canned'));
Res()(ReferenceController.prototype, 'canned', 0);

class ReferenceModule {}
Module({ controllers: [ReferenceController] })(ReferenceModule);

const app = await NestFactory.create(ReferenceModule, new FastifyAdapter(), { logger: false });
await app.listen(0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port })}\n`);
