import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpStatusOf, TOKEN_ENDPOINT_ERRORS } from '../../src/oauth/domain/oauth-errors';

/**
 * docs/oauth-errors.md's token-endpoint tables against the code's catalogue (TOKEN_ENDPOINT_ERRORS):
 * every (HTTP, status, error) the docs promise is one the code can send, and every pair the code can
 * send is in the docs.
 */
const DOC = readFileSync(join(__dirname, '..', '..', 'docs', 'oauth-errors.md'), 'utf8');

/** Rows of the tables headed `| Situation | HTTP | `status` | `error` |`: [http, status, error] each. */
function documentedRefusals(): Array<[number, string, string]> {
  const rows: Array<[number, string, string]> = [];
  let inTable = false;
  for (const line of DOC.split('\n')) {
    if (/^\| Situation \| HTTP \| `status` \| `error` \|/.test(line)) {
      inTable = true;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable || line.startsWith('| ---')) continue;
    const cells = line.split('|').map((c) => c.trim());
    const http = /^\**(\d{3})\**$/.exec(cells[2] ?? '');
    const status = /^`([A-Z_]+)`$/.exec(cells[3] ?? '');
    if (!http || !status) continue; // "as /oauth/v1/token", 429, introspection's 200
    for (const error of (cells[4] ?? '').split('/').map((e) => /`([a-z_]+)`/.exec(e)?.[1])) {
      if (error) rows.push([Number(http[1]), status[1]!, error]);
    }
  }
  return rows;
}

describe('OAuth error catalogue and docs/oauth-errors.md', () => {
  const documented = documentedRefusals();
  const catalogue = Object.entries(TOKEN_ENDPOINT_ERRORS).flatMap(([status, errors]) =>
    errors.map((error) => [httpStatusOf(error), status, error] as [number, string, string]),
  );

  it('reads the tables', () => {
    expect(documented.length).toBeGreaterThan(20);
  });

  it('every documented refusal is in the catalogue, with its HTTP status', () => {
    const known = new Set(catalogue.map((row) => row.join(' ')));
    expect(documented.map((row) => row.join(' ')).filter((row) => !known.has(row))).toEqual([]);
  });

  it('every refusal of the catalogue is documented', () => {
    const written = new Set(documented.map((row) => row.join(' ')));
    expect(catalogue.map((row) => row.join(' ')).filter((row) => !written.has(row))).toEqual([]);
  });
});
