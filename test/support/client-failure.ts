/**
 * The failure of a call of `@hubspot/api-client`: the client throws ApiException-like errors carrying
 * the HTTP code and HubSpot's Error body (a string or parsed). Fails the test if the call succeeds.
 */
export async function clientFailure<Body = Record<string, unknown>>(
  call: Promise<unknown>,
): Promise<{ code: number; body: Body }> {
  try {
    await call;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Body };
  }
  throw new Error('expected the call to fail');
}
