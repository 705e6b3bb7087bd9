/**
 * Issue 26, item 1: the array fields of the request bodies the service documents (its own OpenAPI
 * document, built from the DTOs), nested ones included, and bodies that make one of them wide.
 */
export interface Schema {
  $ref?: string;
  type?: string;
  items?: Schema;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
}
export interface OpenApiComponents {
  components: { schemas: Record<string, Schema> };
}

/** A field's place in a body: property names, and 0 for "an element of the array". */
export type FieldPath = Array<string | number>;

export function arrayPaths(doc: OpenApiComponents, schema: Schema, prefix: FieldPath = [], depth = 0): FieldPath[] {
  const resolved = resolve(doc, schema);
  if (!resolved?.properties || depth > 4) return [];
  const out: FieldPath[] = [];
  for (const [name, raw] of Object.entries(resolved.properties)) {
    const property = resolve(doc, raw)!;
    const path = [...prefix, name];
    if (property.type === 'array') {
      out.push(path);
      if (property.items) out.push(...arrayPaths(doc, property.items, [...path, 0], depth + 1));
    } else if (property.properties) {
      out.push(...arrayPaths(doc, property, path, depth + 1));
    }
  }
  return out;
}

function resolve(doc: OpenApiComponents, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.$ref) return resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()!]);
  if (schema.allOf?.length === 1) return resolve(doc, schema.allOf[0]);
  return schema;
}

/** `{ inputs: [ { options: [ {} × width ] } ] }` for the path inputs.0.options. */
export function wideBody(path: FieldPath, width: number): unknown {
  let value: unknown = Array.from({ length: width }, () => ({}));
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i]!;
    value = typeof key === 'number' ? [value] : { [key]: value };
  }
  return value;
}
