import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response serialisers (fast-json-stringify), each compiled on its first use
 * rather than when its route is registered: a route has a schema for every status it documents,
 * and compiling them all made up a quarter of the server's startup.
 */
export function lazySerializers(): Factory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compile(route) as (data: unknown) => string)(data);
    };
  };
}
