import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';

/** HubSpot's request bodies of the webhooks API, read by hand: every problem named with `in`. */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function refuse(message: string, errors: ErrorDetail[]): never {
  throw HubSpotError.validation(message, errors);
}

/** `{targetUrl, throttling: {maxConcurrentRequests}}`, or the flat `{targetUrl, maxConcurrentRequests}` some integrations send. */
export function parseSettings(body: unknown): { targetUrl: string; maxConcurrentRequests: number } {
  if (!isObject(body))
    refuse('The body must be a JSON object.', [{ message: 'expected an object', in: 'body', code: 'INVALID' }]);
  const errors: ErrorDetail[] = [];
  const { targetUrl, throttling } = body;
  if (typeof targetUrl !== 'string' || targetUrl === '') {
    errors.push({ message: 'targetUrl is required (a URL)', in: 'targetUrl', code: 'REQUIRED' });
  }
  const max = isObject(throttling) ? throttling.maxConcurrentRequests : body.maxConcurrentRequests;
  if (typeof max !== 'number' || !Number.isInteger(max)) {
    errors.push({
      message: 'throttling.maxConcurrentRequests is required (an integer)',
      in: 'throttling.maxConcurrentRequests',
      code: 'REQUIRED',
    });
  }
  if (errors.length > 0) refuse('Invalid webhook settings.', errors);
  return { targetUrl: targetUrl as string, maxConcurrentRequests: max as number };
}

export function parseCreateSubscription(
  body: unknown,
  activeRequired: boolean,
): { eventType: string; propertyName: string | null; objectTypeId: string | null; active: boolean } {
  if (!isObject(body))
    refuse('The body must be a JSON object.', [{ message: 'expected an object', in: 'body', code: 'INVALID' }]);
  const errors: ErrorDetail[] = [];
  const { eventType, propertyName, objectTypeId, active } = body;
  if (typeof eventType !== 'string' || eventType === '') {
    errors.push({ message: 'eventType is required', in: 'eventType', code: 'REQUIRED' });
  }
  for (const [name, value] of [
    ['propertyName', propertyName],
    ['objectTypeId', objectTypeId],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string') {
      errors.push({ message: `${name} must be a string`, in: name, code: 'INVALID' });
    }
  }
  if (active !== undefined && typeof active !== 'boolean') {
    errors.push({ message: 'active must be a boolean', in: 'active', code: 'INVALID' });
  }
  if (active === undefined && activeRequired)
    errors.push({ message: 'active is required', in: 'active', code: 'REQUIRED' });
  if (errors.length > 0) refuse('Invalid subscription.', errors);
  return {
    eventType: eventType as string,
    propertyName: typeof propertyName === 'string' && propertyName !== '' ? propertyName : null,
    objectTypeId: typeof objectTypeId === 'string' && objectTypeId !== '' ? objectTypeId : null,
    // HubSpot: "Defaults to false."
    active: active === true,
  };
}

export function parsePatch(body: unknown): { active: boolean | undefined } {
  if (!isObject(body))
    refuse('The body must be a JSON object.', [{ message: 'expected an object', in: 'body', code: 'INVALID' }]);
  if (body.active !== undefined && typeof body.active !== 'boolean') {
    refuse('Invalid subscription.', [{ message: 'active must be a boolean', in: 'active', code: 'INVALID' }]);
  }
  return { active: body.active as boolean | undefined };
}

export const MAX_BATCH_INPUTS = 100;

export function parseBatchUpdate(body: unknown): { id: number; active: boolean }[] {
  if (!isObject(body) || !Array.isArray(body.inputs)) {
    refuse('inputs is required (an array).', [{ message: 'expected an array', in: 'inputs', code: 'REQUIRED' }]);
  }
  const inputs = body.inputs as unknown[];
  if (inputs.length > MAX_BATCH_INPUTS) {
    refuse(`At most ${MAX_BATCH_INPUTS} inputs.`, [
      { message: `at most ${MAX_BATCH_INPUTS}`, in: 'inputs', code: 'TOO_MANY' },
    ]);
  }
  const errors: ErrorDetail[] = [];
  inputs.forEach((input, i) => {
    if (!isObject(input)) return errors.push({ message: 'expected an object', in: `inputs[${i}]`, code: 'INVALID' });
    if (typeof input.id !== 'number' || !Number.isInteger(input.id) || input.id < 1 || input.id > 2_147_483_647) {
      errors.push({ message: 'id must be an integer', in: `inputs[${i}].id`, code: 'INVALID' });
    }
    if (typeof input.active !== 'boolean')
      errors.push({ message: 'active must be a boolean', in: `inputs[${i}].active`, code: 'REQUIRED' });
    return undefined;
  });
  if (errors.length > 0) refuse('Invalid batch input.', errors);
  return inputs.map((i) => ({ id: (i as { id: number }).id, active: (i as { active: boolean }).active }));
}
