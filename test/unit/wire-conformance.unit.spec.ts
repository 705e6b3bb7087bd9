import { PUBLIC_CARD_SCHEMAS } from '../../src/cards/http/wire-schemas';
import {
  arrayOf,
  int32,
  int64,
  object,
  oneOf,
  str,
  strEnum,
  type WireSchema,
} from '../../src/platform/http/wire-schema';
import {
  conformanceProblems,
  type OfficialDocument,
  officialProblems,
  officialResponseSchema,
} from '../support/spec-conformance';

/**
 * The comparison the official-spec conformance suite runs (test/conformance), against a tiny
 * official-like file written here: it must fail when one of our schemas drops a field HubSpot
 * requires, or the suite proves nothing.
 */
const doc: OfficialDocument = {
  paths: {
    '/things/{id}': {
      get: {
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'count', 'kind', 'parts'],
        properties: {
          id: { type: 'string' },
          count: { type: 'integer', format: 'int32' },
          kind: { type: 'string', enum: ['A', 'B'] },
          parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } },
          note: { type: 'string' },
        },
      },
      Part: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      Either: { oneOf: [{ $ref: '#/components/schemas/Thing' }, { $ref: '#/components/schemas/Part' }] },
    },
  },
};
const official = officialResponseSchema(doc, 'GET', '/things/{id}', 200)!;

const ours = (overrides: Record<string, WireSchema> = {}, drop?: string): WireSchema => {
  const fields: Record<string, WireSchema> = {
    id: str(),
    count: int32(),
    kind: strEnum('A'),
    parts: arrayOf(object({ name: str() })),
    ...overrides,
  };
  if (drop) delete fields[drop];
  return object(fields, { extra: str() });
};

describe('conformance of our wire schemas with an official-like schema', () => {
  it('accepts a schema that sends every required field with HubSpot’s types (extra fields allowed)', () => {
    expect(conformanceProblems(ours(), official, doc)).toEqual([]);
  });

  it('fails when a required field is removed from ours', () => {
    expect(conformanceProblems(ours({}, 'count'), official, doc)).toEqual([
      '$.count: required by HubSpot, missing from ours',
    ]);
  });

  it('fails when a required field is only optional in ours, also inside arrays', () => {
    const partial = ours({ parts: arrayOf(object({}, { name: str() })) });
    expect(conformanceProblems(partial, official, doc)).toEqual([
      '$.parts[].name: required by HubSpot, optional in ours',
    ]);
  });

  it('fails on another type, a wider integer, or an enum value HubSpot does not know', () => {
    expect(conformanceProblems(ours({ id: int32() }), official, doc)).toEqual([
      "$.id: ours is integer, HubSpot's is string",
    ]);
    expect(conformanceProblems(ours({ count: int64() }), official, doc)).toEqual([
      "$.count: ours is int64, HubSpot's is int32",
    ]);
    expect(conformanceProblems(ours({ kind: strEnum('A', 'C') }), official, doc)).toEqual([
      '$.kind: ["C"] not in HubSpot\'s enum',
    ]);
    expect(conformanceProblems(ours({ kind: str() }), official, doc)).toEqual([
      "$.kind: HubSpot's is an enum, ours is not",
    ]);
  });

  it('needs each of our oneOf alternatives to be one of HubSpot’s', () => {
    const either = { $ref: '#/components/schemas/Either' };
    expect(conformanceProblems(oneOf(ours(), object({ name: str() })), either, doc)).toEqual([]);
    expect(conformanceProblems(oneOf(ours(), object({ label: str() })), either, doc)).toHaveLength(1);
  });

  it('a real schema of ours loses a required field: the comparison says which', () => {
    const card = PUBLIC_CARD_SCHEMAS.v3;
    const withoutTitle: WireSchema = { ...card, required: card.required!.filter((f) => f !== 'title') };
    const officialCard = {
      type: 'object',
      required: ['id', 'title'],
      properties: { id: { type: 'string' }, title: { type: 'string' } },
    };
    expect(conformanceProblems(card, officialCard, doc)).toEqual([]);
    expect(conformanceProblems(withoutTitle, officialCard, doc)).toEqual([
      '$.title: required by HubSpot, optional in ours',
    ]);
  });

  it('validates a recorded answer against the official schema, $refs resolved in its file', () => {
    expect(officialProblems(doc, official, { id: 'x', count: 1, kind: 'A', parts: [{ name: 'p' }], more: 1 })).toEqual(
      [],
    );
    expect(officialProblems(doc, official, { id: 'x', count: 2 ** 31, kind: 'C', parts: [{}] })).toHaveLength(3);
  });
});
