import { ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, IsObject, ValidationError } from 'class-validator';

import { createApp } from '../../src/app.factory';
import { featureModules } from '../../src/feature-modules';
import { BatchPropertyCreateDto } from '../../src/crm-schema/http/properties.dto';
import { PropertyCreateDto } from '../../src/crm-schema/http/properties.dto';
import { SchemaCreateDto } from '../../src/crm-schema/http/schemas.dto';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  declaredFieldsOnly,
  MAX_BODY_ARRAY_ITEMS,
  MAX_FREE_FORM_CONTAINERS,
  MAX_FREE_FORM_VALUES,
  overlongArrays,
} from '../../src/platform/http/array-bounds';
import {
  flattenValidationErrors,
  HubSpotValidationPipe,
  MAX_REPORTED_ERRORS,
} from '../../src/platform/http/validation';

// Every DTO of every module is declared once the modules are loaded.
void [createApp, featureModules];

const property = { name: 'p', label: 'P', type: 'enumeration', fieldType: 'select', groupName: 'g' };

function wideErrorTree(width: number): ValidationError[] {
  const child = (i: number): ValidationError =>
    Object.assign(new ValidationError(), {
      property: String(i),
      children: [
        Object.assign(new ValidationError(), { property: 'name', constraints: { isDefined: 'name is required' } }),
      ],
    });
  return [
    Object.assign(new ValidationError(), {
      property: 'inputs',
      children: Array.from({ length: width }, (_, i) => child(i)),
    }),
  ];
}

describe('flattenValidationErrors (issue 26, item 1)', () => {
  it('flattens a tree of 200,000 bad elements without overflowing the stack, keeping the first few', () => {
    const { details, total } = flattenValidationErrors(wideErrorTree(200_000));
    expect(total).toBe(200_000);
    expect(details).toHaveLength(MAX_REPORTED_ERRORS);
    expect(details[0]).toEqual({ message: 'inputs.0.name is required', in: 'inputs.0.name', code: 'REQUIRED' });
    expect(details[1]!.in).toBe('inputs.1.name');
  });

  it('keeps depth-first body order and every field under the bound', () => {
    const tree = [
      Object.assign(new ValidationError(), {
        property: 'a',
        constraints: { isString: 'a must be a string' },
        children: [
          Object.assign(new ValidationError(), { property: 'b', constraints: { isInt: 'b must be an integer' } }),
        ],
      }),
      Object.assign(new ValidationError(), { property: 'c', constraints: { isIn: 'c must be one of x' } }),
    ];
    expect(flattenValidationErrors(tree).details.map((d) => d.in)).toEqual(['a', 'a.b', 'c']);
  });
});

describe('over-long arrays are refused before any element is validated', () => {
  const pipe = new HubSpotValidationPipe();
  const refusal = async (metatype: new () => object, body: unknown) => {
    try {
      await pipe.transform(body, { type: 'body', metatype });
    } catch (error) {
      expect(error).toBeInstanceOf(HubSpotError);
      return error as HubSpotError;
    }
    throw new Error('accepted');
  };

  it('class-transformer and class-validator never see a body with an over-long array', async () => {
    const inner = jest.spyOn(ValidationPipe.prototype, 'transform');
    try {
      const error = await refusal(BatchPropertyCreateDto, { inputs: Array.from({ length: 30_000 }, () => ({})) });
      expect(error.extras.errors).toEqual([
        { message: 'inputs must contain no more than 100 elements', in: 'inputs', code: 'TOO_MANY_ITEMS' },
      ]);
      expect(inner).not.toHaveBeenCalled();
      await refusal(PropertyCreateDto, { ...property, options: Array(40_000).fill({}) });
      expect(inner).not.toHaveBeenCalled();
      // A body inside the bounds does go on to the validators.
      await refusal(BatchPropertyCreateDto, { inputs: [{}] });
      expect(inner).toHaveBeenCalledTimes(1);
    } finally {
      inner.mockRestore();
    }
  });

  it('nested arrays are checked at their own bound, with the path of the element holding them', () => {
    const body = { inputs: [property, { ...property, options: Array(1001).fill({}) }] };
    expect(overlongArrays(BatchPropertyCreateDto, body, 20)).toEqual([
      {
        message: 'inputs.1.options must contain no more than 1000 elements',
        in: 'inputs.1.options',
        code: 'TOO_MANY_ITEMS',
      },
    ]);
  });

  it('arrays inside their bounds but with more elements than MAX_BODY_ARRAY_ITEMS together: the body is refused', () => {
    const perInput = 1000;
    const inputs = Math.ceil(MAX_BODY_ARRAY_ITEMS / perInput) + 1;
    const body = { inputs: Array.from({ length: inputs }, () => ({ ...property, options: Array(perInput).fill({}) })) };
    expect(overlongArrays(BatchPropertyCreateDto, body, 20)).toEqual([
      expect.objectContaining({ in: 'body', code: 'TOO_MANY_ITEMS' }),
    ]);
  });

  it('non-array values where an array is declared are left to the validators (they say "must be an array")', () => {
    expect(overlongArrays(BatchPropertyCreateDto, { inputs: 'x'.repeat(100_000) }, 20)).toEqual([]);
    expect(overlongArrays(BatchPropertyCreateDto, { inputs: { length: 1e9 } }, 20)).toEqual([]);
  });

  it('every array field of every DTO declares its own @ArrayMaxSize', () => {
    type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
    const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, ValidationMetadata[]> };
    const missing: string[] = [];
    let arrays = 0;
    for (const [target, metadata] of storage.validationMetadatas) {
      const byProperty = new Map<string, ValidationMetadata[]>();
      for (const m of metadata) byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
      for (const [name, rules] of byProperty) {
        if (!rules.some((r) => r.name === 'isArray' || r.each)) continue;
        arrays++;
        if (!rules.some((r) => r.name === 'arrayMaxSize')) missing.push(`${(target as { name: string }).name}.${name}`);
      }
    }
    expect(arrays).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});

describe('undeclared fields never walked (issue 41, item 2)', () => {
  const pipe = new HubSpotValidationPipe();
  /** A value that records every read of it: anything walking it (class-transformer, proto-key stripping) is seen. */
  const trap = () => {
    const reads: PropertyKey[] = [];
    const value = new Proxy(
      { a: {}, b: [{}, {}] },
      {
        get: (target, key, receiver) => {
          reads.push(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
        ownKeys: (target) => {
          reads.push('ownKeys');
          return Reflect.ownKeys(target);
        },
      },
    );
    return { value, reads };
  };

  it('drops undeclared fields, top level and inside nested DTOs, before any framework walks them', async () => {
    const top = trap();
    const nested = trap();
    const body = { inputs: [{ ...property, junk: nested.value }], junk: top.value };
    const out = (await pipe.transform(body, { type: 'body', metatype: BatchPropertyCreateDto })) as {
      inputs: Array<Record<string, unknown>>;
    };
    expect(out).toBeInstanceOf(BatchPropertyCreateDto);
    expect(out.inputs[0]).toBeInstanceOf(PropertyCreateDto);
    expect(Object.keys(out)).toEqual(['inputs']);
    expect(out.inputs[0]!.junk).toBeUndefined();
    expect(out.inputs[0]!.name).toBe('p');
    expect(top.reads).toEqual([]);
    expect(nested.reads).toEqual([]);
  });

  it('an object where a primitive belongs is refused as before, without its contents being walked', async () => {
    const inside = trap();
    await expect(
      pipe.transform({ ...property, name: inside.value }, { type: 'body', metatype: PropertyCreateDto }),
    ).rejects.toMatchObject({ extras: { errors: [expect.objectContaining({ in: 'name', code: 'INVALID' })] } });
    expect(inside.reads).toEqual([]);
  });

  it('a wide array where one primitive belongs goes on empty; an array of primitives keeps its elements', () => {
    const wide = Array.from({ length: 40_000 }, () => ({ a: 1 }));
    const out = declaredFieldsOnly(PropertyCreateDto, { ...property, name: wide, options: [] }).body as {
      name: unknown;
    };
    expect(out.name).toEqual([]);
    const schema = declaredFieldsOnly(SchemaCreateDto, { requiredProperties: ['title', { deep: [1, 2] }] }).body;
    expect(schema).toEqual({ requiredProperties: ['title', {}] });
  });

  it('bounds free-form values (objects without a DTO) by their values and containers', () => {
    class FreeFormDto {
      @IsObject() properties!: Record<string, unknown>;
    }
    const many = Object.fromEntries(Array.from({ length: MAX_FREE_FORM_VALUES + 1 }, (_, i) => [`p${i}`, 'v']));
    expect(declaredFieldsOnly(FreeFormDto, { properties: many }).tooLarge).toBe(true);
    const deep = Object.fromEntries(Array.from({ length: MAX_FREE_FORM_CONTAINERS }, (_, i) => [`p${i}`, {}]));
    expect(declaredFieldsOnly(FreeFormDto, { properties: deep }).tooLarge).toBe(true);
    const fine = { properties: { firstname: 'Ada', lastname: 'Lovelace' }, other: 1 };
    expect(declaredFieldsOnly(FreeFormDto, fine)).toEqual({
      body: { properties: { firstname: 'Ada', lastname: 'Lovelace' } },
      tooLarge: false,
    });
  });
});
