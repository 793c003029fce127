import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticate, authorizationCount } from '../auth/bearer.ts';
import { RATE_WINDOW_SEC, rateLimitHeaders } from '../auth/rate-limits.ts';
import type { TokenRecord, TokenStore } from '../../storage/store.ts';
import { ApiError } from '../errors/catalogue.ts';
import { sendError, toApiError } from '../errors/handlers.ts';
import { SECURITY_HEADERS } from './headers.ts';
import { REQUEST_ID_HEADER, type RequestRules, admission, requestPath } from './rules.ts';
import { isPublic, policyOf } from './policy.ts';
import { decorateRequests } from './state.ts';

export interface RequestHooksOptions {
  rules: RequestRules;
  /** For a token seen for the first time: its record is read and its secret checked. */
  store: Pick<TokenStore, 'tokenById'>;
  maxUrlLength: number;
}

/**
 * The full path's side of the request rules (rules.ts), in one onRequest hook after the headers:
 * admission, then the versions (read once, kept on the request), the bearer check and the rate
 * limit. A request is counted against its token's limit, or its address's when it has no valid
 * token, before its 401 is sent, so that guessing tokens is rate limited too. Public routes
 * (policy.ts isPublic) are counted by address.
 */
export const requestHooks = fp<RequestHooksOptions>(async (app, { rules, store, maxUrlLength }) => {
  decorateRequests(app);
  const { clock, tokens } = rules;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    // The route the router chose declares its limits and whether it is public, so that `/v1/openapi.json#x`
    // or `/v1/%6Fpenapi.json` is as public as `/v1/openapi.json`.
    const policy = policyOf(request);
    const refused = admission(request, maxUrlLength, policy);
    if (refused) throw refused;
    const path = request.routeOptions.url ?? requestPath(request.url);
    let token: TokenRecord | undefined;
    let authError: ApiError | undefined;
    if (!isPublic(policy, path)) {
      try {
        // One read a request gives the tokens version (for the token cache) and the data version (for the answer cache):
        // the fast path's if it read them, else read here; on SQLite, and on PostgreSQL while the last reading may be reused, without waiting.
        const versions = await rules.versions(request.raw);
        request.dataVersion = versions.data;
        const header = request.headers.authorization ?? '';
        // The very header a token has already passed with at this tokens version (compared in constant time,
        // as the fast path does) is not hashed and looked up again; any other goes through every check.
        token = authorizationCount(request.raw.rawHeaders) === 1 ? rules.passedToken(versions.tokens, header, clock.now()) : undefined;
        if (!token) {
          token = await authenticate(request, store, clock, tokens.lookupAt(versions.tokens));
          tokens.passedWith(versions.tokens, token, header);
        }
        request.tokenId = token.id;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        authError = error;
      }
    }
    const counted = rules.limitKey(token, request.ip);
    // A limiter that counts in this process is not waited for; a shared one (Redis) is.
    const decision = rules.consumeNow(counted) ?? await rules.consume(counted);
    request.rateDecision = decision;
    reply.headers(rateLimitHeaders(decision, RATE_WINDOW_SEC));
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Rate limit of ${decision.limit} requests a minute exceeded; retry in ${decision.resetSec} s.`, {
        'retry-after': String(decision.resetSec),
      });
    }
    if (authError) throw authError;
  });
}, { name: 'request-hooks' });

/** Errors the router raises before any hook runs (Fastify's frameworkErrors): answered in the documented shape too. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No hook has run, so onRequest's and onSend's headers are set here.
  reply.header(REQUEST_ID_HEADER, request.id).header('cache-control', 'no-store').headers(SECURITY_HEADERS);
  const apiErr = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? new ApiError('not_found', 'No city or station has an id that long (200 characters at most).')
    : error.code === 'FST_ERR_BAD_URL'
      ? new ApiError('invalid_parameter', 'The URL is not valid: check its percent-encoding.')
      : toApiError(error, request);
  void sendError(reply, apiErr);
}
