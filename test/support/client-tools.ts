import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { childEnv } from './child-env';

/**
 * The HTTP clients the hosts-front suites drive, where installed: their recipes are tested where
 * the tool is there and otherwise skipped, saying so on stderr (a skip must never pass as a test).
 */
export const HAVE_CURL = existsSync('/usr/bin/curl');
export const HAVE_PYTHON_REQUESTS = spawnSync('python3', ['-c', 'import requests'], { env: childEnv() }).status === 0;
/** HubSpot's Python SDK is on PyPI only, which this project's machines cannot reach: run where importable (PYTHONPATH). */
export const HAVE_PYTHON_SDK =
  spawnSync('python3', ['-c', 'import hubspot, importlib.metadata; importlib.metadata.version("hubspot-api-client")'], {
    env: childEnv(),
  }).status === 0;

export const PYTHON_CLIENTS: readonly (readonly [boolean, string])[] = [
  [HAVE_PYTHON_REQUESTS, "python3 with requests (Debian's python3-requests)"],
  [HAVE_PYTHON_SDK, "HubSpot's Python SDK (hubspot-api-client, from PyPI: not reachable here; put it on PYTHONPATH)"],
];

/** One stderr line per tool that is missing, naming what was therefore NOT tested. */
export function reportMissing(suite: string, tools: readonly (readonly [boolean, string])[]): void {
  for (const [have, what] of tools) {
    if (!have) process.stderr.write(`[${suite}] SKIPPED: ${what} is not available; what needs it was NOT tested.\n`);
  }
}
