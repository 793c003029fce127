/** The POST forms' bodies (http/routes/post-body.ts), made from their GET's query schemas. */
import { type TSchema, Type } from '@sinclair/typebox';

/**
 * The body's schema for the API document and the typed client, from the GET's query schema: each
 * parameter a string, or a number where the GET's is numeric, or (lists) an array of strings.
 * Only types: every other rule is the GET's, applied to the query the body makes (bodyAsQuery).
 */
export function bodySchemaOf(querySchema: { properties: Record<string, TSchema>; required?: string[] }, description: string,
  numeric: readonly string[], lists: Readonly<Record<string, string>> = {}): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, property] of Object.entries(querySchema.properties)) {
    const text = (property as { description?: string }).description ?? '';
    const list = lists[name];
    const schema = list !== undefined
      ? Type.Union([Type.Array(Type.String(), { description: list }), Type.String()], { description: text })
      : numeric.includes(name) || property.type === 'integer' ? Type.Union([Type.Number(), Type.String()], { description: text }) : Type.String({ description: text });
    properties[name] = (querySchema.required ?? []).includes(name) ? schema : Type.Optional(schema);
  }
  return Type.Object(properties, { description });
}
