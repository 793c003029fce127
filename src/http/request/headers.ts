import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import { REQUEST_ID_HEADER } from './rules.ts';

/**
 * Headers for a JSON API on every answer (the docs page gets its own CSP from swagger-ui).
 * No HSTS: this process does not terminate TLS; the proxy that does should send it.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** Response headers a browser script may read (CORS); also on answers made in front of Fastify. */
const EXPOSED_HEADERS = [
  'ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate',
  // A CSV answer's file name and page headers (http/representation/csv.ts).
  'Content-Disposition', 'Link', 'X-Total-Count', 'X-Total-Pages', 'X-Current-Page',
] as const;

/** What every answer carries: the security headers, and CORS's for a simple request (any origin; a preflight adds its own). */
export const EVERY_ANSWER: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS, 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
};

/**
 * The request id, the security headers and CORS. Registered before every other hook, so that
 * answers made in hooks (CORS preflight, 401, 429) carry them too.
 */
export const answerHeaders = fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id).headers(EVERY_ANSWER);
    done();
  });

  // Preflight only: @fastify/cors in a scope of its own, where its hook runs for its OPTIONS
  // route alone. Every other answer has the same static CORS headers from the hook above (the
  // plugin's own hook works them out anew on every request). test/http/conventions.test.ts and
  // security-headers.test.ts check both kinds of answer.
  await app.register(async (preflight) => {
    await preflight.register(cors, {
      origin: '*',
      methods: ['GET', 'HEAD', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'If-None-Match', 'X-Request-Id'],
      exposedHeaders: [...EXPOSED_HEADERS],
      maxAge: 86_400,
      // Any OPTIONS gets the 204 and CORS headers; the strict default answers a bare OPTIONS with a text/plain 400 outside the error shape.
      strictPreflight: false,
    });
  });
}, { name: 'answer-headers' });
