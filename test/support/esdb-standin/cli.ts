/*
 * `npm run esdb:standin -- --port <N>`: the EventStoreDB stand-in on 127.0.0.1:<N> (a free port
 * without --port). Prints one line, its connection string, and serves until SIGTERM or SIGINT.
 * A test tool that speaks EventStoreDB's protocol, not EventStoreDB (see ./server).
 */
import { EsdbStandIn } from './server';

function portArgument(args: string[]): number {
  const at = args.indexOf('--port');
  if (at < 0) return 0;
  const port = Number(args[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port needs a port number (0-65535), got ${String(args[at + 1])}\n`);
    process.exit(2);
  }
  return port;
}

async function main(): Promise<void> {
  const standIn = new EsdbStandIn({ port: portArgument(process.argv.slice(2)) });
  const connectionString = await standIn.start();
  process.stdout.write(`${connectionString}\n`);
  const stop = () => {
    void standIn.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
