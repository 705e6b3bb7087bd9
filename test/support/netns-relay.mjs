// Run by test/e2e/hubspot-hosts-transparent-front.e2e.spec.ts inside a network namespace of its own
// (`unshare -rn --mount`, its own /etc/hosts mapping HubSpot's hosts to 127.0.0.1): listens on that
// namespace's 127.0.0.1:443 and carries each connection over a Unix socket (files cross network
// namespaces) to the test, which passes it on to the transparent front. Then runs the client given
// after `--` and exits with its status. Usage: node netns-relay.mjs <unix-socket> -- <command> [args…]
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, dashes, command, ...args] = process.argv.slice(2);
if (!socketPath || dashes !== '--' || !command) {
  process.stderr.write('usage: node netns-relay.mjs <unix-socket> -- <command> [args…]\n');
  process.exit(2);
}
const relay = createServer((client) => {
  const upstream = connect({ path: socketPath });
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
relay.listen(443, '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    relay.close();
    process.exit(code ?? (signal ? 1 : 0));
  });
});
