import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own serializer factory (fast-json-stringify), except that each response
 * schema is compiled on its first answer instead of at start. Fastify compiles one
 * serializer per route and status, HEAD twins of GET routes included: several hundred
 * generated functions whose source V8 keeps, about a fifth of the idle heap, most of which
 * an instance may never use. The first answer of each route and status pays the compile
 * (tens of milliseconds for the largest schemas, once); every later one calls the compiled
 * function through one closure.
 */
export function lazySerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc) => {
        serialize ??= compile(route);
        return serialize(doc);
      };
    };
  };
}
