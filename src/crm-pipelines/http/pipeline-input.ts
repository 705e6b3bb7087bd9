import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import type { PipelineInput, StageInput } from '../domain/pipelines.decider';

/**
 * Bodies and query values of the pipelines API, read by hand so that every bad field is reported
 * at once with `in` naming it (HubSpot's VALIDATION_ERROR).
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_LABEL = 255;

class Problems {
  readonly list: ErrorDetail[] = [];
  add(at: string, message: string, code = 'INVALID') {
    this.list.push({ message, in: at, code });
  }
  throwIfAny(): void {
    if (this.list.length > 0) {
      throw HubSpotError.validation(
        `Invalid input JSON: ${this.list.map((p) => `${p.in}: ${p.message}`).join('; ')}`,
        this.list,
      );
    }
  }
}

function body(raw: unknown, problems: Problems): Record<string, unknown> {
  if (!isObject(raw)) {
    problems.add('body', 'The request body must be a JSON object.', 'REQUIRED');
    problems.throwIfAny();
  }
  return raw as Record<string, unknown>;
}

function label(v: unknown, at: string, problems: Problems, required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) problems.add(at, `${at} is required`, 'REQUIRED');
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_LABEL || v.includes('\u0000')) {
    problems.add(at, `${at} must be a non-empty string of at most ${MAX_LABEL} characters`);
    return undefined;
  }
  return v.trim();
}

function displayOrder(v: unknown, at: string, problems: Problems, required: boolean): number | undefined {
  if (v === undefined || v === null) {
    if (required) problems.add(at, `${at} is required`, 'REQUIRED');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -2_147_483_648 || v > 2_147_483_647) {
    problems.add(at, `${at} must be a 32-bit integer`);
    return undefined;
  }
  return v;
}

function id(v: unknown, at: string, problems: Problems): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(v)) {
    problems.add(at, `${at} must be 1 to 100 letters, digits or _ . : -`);
    return undefined;
  }
  return v;
}

function metadata(v: unknown, at: string, problems: Problems, required: boolean): Record<string, string> | undefined {
  if (v === undefined || v === null) {
    if (required) problems.add(at, `${at} is required`, 'REQUIRED');
    return undefined;
  }
  if (!isObject(v)) {
    problems.add(at, `${at} must be an object of string values`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (typeof value === 'string') out[k] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[k] = String(value);
    else problems.add(`${at}.${k}`, `${at}.${k} must be a string`);
  }
  return out;
}

function stage(raw: unknown, at: string, problems: Problems): StageInput | undefined {
  if (!isObject(raw)) {
    problems.add(at, `${at} must be an object`);
    return undefined;
  }
  const l = label(raw.label, `${at}.label`, problems, true);
  const d = displayOrder(raw.displayOrder, `${at}.displayOrder`, problems, true);
  const m = metadata(raw.metadata, `${at}.metadata`, problems, true);
  const s = id(raw.stageId, `${at}.stageId`, problems);
  if (l === undefined || d === undefined || m === undefined) return undefined;
  return { label: l, displayOrder: d, metadata: m, ...(s !== undefined ? { stageId: s } : {}) };
}

/** PipelineInput (POST) and PipelineReplaceInput (PUT: no `pipelineId`). */
export function parsePipelineInput(raw: unknown, withId: boolean): PipelineInput {
  const problems = new Problems();
  const b = body(raw, problems);
  const l = label(b.label, 'label', problems, true);
  const d = displayOrder(b.displayOrder, 'displayOrder', problems, true);
  const pipelineId = withId ? id(b.pipelineId, 'pipelineId', problems) : undefined;
  let stages: StageInput[] = [];
  if (!Array.isArray(b.stages)) problems.add('stages', 'stages is required: an array of stages', 'REQUIRED');
  else if (b.stages.length > 1000) problems.add('stages', 'stages holds at most 1000 entries');
  else stages = b.stages.map((s, i) => stage(s, `stages[${i}]`, problems)).filter((s) => s !== undefined);
  problems.throwIfAny();
  return { label: l!, displayOrder: d!, stages, ...(pipelineId !== undefined ? { pipelineId } : {}) };
}

/** PipelinePatchInput. */
export function parsePipelinePatch(raw: unknown): { label?: string; displayOrder?: number; archived?: boolean } {
  const problems = new Problems();
  const b = body(raw, problems);
  const l = label(b.label, 'label', problems, false);
  const d = displayOrder(b.displayOrder, 'displayOrder', problems, false);
  const archived = flag(b.archived, 'archived', problems);
  problems.throwIfAny();
  return {
    ...(l !== undefined ? { label: l } : {}),
    ...(d !== undefined ? { displayOrder: d } : {}),
    ...(archived !== undefined ? { archived } : {}),
  };
}

/** PipelineStageInput (POST) and PipelineStageReplaceInput (PUT). */
export function parseStageInput(raw: unknown, withId: boolean): StageInput {
  const problems = new Problems();
  const b = body(raw, problems);
  const s = stage(withId ? b : { ...b, stageId: undefined }, 'body', problems);
  problems.list.forEach((p) => (p.in = p.in?.replace(/^body\./, '')));
  problems.throwIfAny();
  return s!;
}

/** PipelineStagePatchInput. */
export function parseStagePatch(raw: unknown): {
  label?: string;
  displayOrder?: number;
  archived?: boolean;
  metadata?: Record<string, string>;
} {
  const problems = new Problems();
  const b = body(raw, problems);
  const l = label(b.label, 'label', problems, false);
  const d = displayOrder(b.displayOrder, 'displayOrder', problems, false);
  const archived = flag(b.archived, 'archived', problems);
  const m = metadata(b.metadata, 'metadata', problems, false);
  problems.throwIfAny();
  return {
    ...(l !== undefined ? { label: l } : {}),
    ...(d !== undefined ? { displayOrder: d } : {}),
    ...(archived !== undefined ? { archived } : {}),
    ...(m !== undefined ? { metadata: m } : {}),
  };
}

function flag(v: unknown, at: string, problems: Problems): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    problems.add(at, `${at} must be true or false`);
    return undefined;
  }
  return v;
}

/** `validateReferencesBeforeDelete` / `validateDealStageUsagesBeforeDelete`: booleans in the query, false by default. */
export function parseQueryFlag(raw: unknown, name: string): boolean {
  const v = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw HubSpotError.validation(`Invalid input: ${name}`, [
    { message: `${name} must be true or false`, in: name, code: 'INVALID' },
  ]);
}

/** A path segment (pipeline or stage id): at most 100 characters, no NUL. */
export function parsePathId(raw: string, name: string): string {
  if (raw.length === 0 || raw.length > 100 || raw.includes('\u0000')) {
    throw HubSpotError.validation(`Invalid input: ${name}`, [
      { message: `${name} is not valid`, in: name, code: 'INVALID' },
    ]);
  }
  return raw;
}
