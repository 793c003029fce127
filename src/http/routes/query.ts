import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors/catalogue.ts';
import { badlyEncoded } from '../request/query-string.ts';
import { type Near, parseNear, parseRadius } from '../../domain/nearby.ts';
import { NEAR_MESSAGES } from '../../schemas/queries.ts';
import { CONSUMPTION_RANGE, type Fill, LITRES_RANGE } from '../../domain/along.ts';
import { CONSUMPTION_ACCEPTS, LITRES_ACCEPTS } from '../../schemas/fill.ts';

export interface QueryProperty { type?: string; 'x-accepts'?: string }

const PLAIN_DECIMAL = /^[0-9]{1,10}$/;

/** Parameters whose values are written in lowercase (ids, format), accepted in any case. */
const CASE_INSENSITIVE: ReadonlySet<string> = new Set(['state', 'city', 'city_id', 'brand', 'fuel', 'format']);

/**
 * Runs before schema validation, on every route: a query string that is not valid URL encoding
 * (request/query-string.ts badlyEncoded) is a 400 naming the parameter. Then Ajv would coerce
 * '1e3', ' 10' or '0x10' into integers, so integer query parameters must first be plain decimal
 * digits. Ids (`state`, `city`, `brand`, `fuel`) and `format` are case-insensitive.
 */
export async function strictQuery(request: FastifyRequest): Promise<void> {
  const bad = badlyEncoded(request.query);
  if (bad !== undefined) {
    apiError('invalid_parameter', `Parameter '${bad.slice(0, 40)}' is not valid URL encoding: each %XX escape must be two hex digits, and together they must make UTF-8.`);
  }
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, QueryProperty> } | undefined;
  checkQuery(request.query as Record<string, unknown>, schema?.properties);
}

/** strictQuery's checks of the parameters (as the query string gives them, or a POST body as routes/post-body.ts makes them). */
export function checkQuery(query: Record<string, unknown>, properties: Record<string, QueryProperty> | undefined): void {
  if (!properties) return;
  for (const [name, property] of Object.entries(properties)) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') apiError('invalid_parameter', `Parameter '${name}' must be given once; ${property['x-accepts'] ?? ''}`.trim() + '.');
    if (property.type === 'integer' && !PLAIN_DECIMAL.test(value)) {
      apiError('invalid_parameter', `Parameter '${name}' ${property['x-accepts'] ?? 'must be a whole number'}.`);
    }
    if (CASE_INSENSITIVE.has(name)) query[name] = value.toLowerCase();
  }
}

/** `near` and `radius` as a Near (undefined without near); out-of-range values and a radius without near are 400s. */
export function nearQuery(query: { near?: string | undefined; radius?: string | undefined }): Near | undefined {
  if (query.near === undefined) {
    if (query.radius !== undefined) apiError('invalid_parameter', "Parameter 'radius' needs near=LAT,LNG: it is the radius around that point.");
    return undefined;
  }
  const centre = parseNear(query.near) ?? apiError('invalid_parameter', `Parameter 'near' ${NEAR_MESSAGES.near}.`);
  const radiusKm = parseRadius(query.radius) ?? apiError('invalid_parameter', `Parameter 'radius' ${NEAR_MESSAGES.radius}.`);
  return { centre, radiusKm };
}

/** `max_age` (hours) as the earliest Unix second a report may have to count: undefined without it. */
export function freshSince(nowSec: number, maxAgeHours: number | undefined): number | undefined {
  return maxAgeHours === undefined ? undefined : nowSec - maxAgeHours * 3600;
}

/**
 * `litres` and `consumption` as a Fill (undefined without them): both or neither, each in range;
 * `order=net_cost` needs them. Their syntax the schema's patterns have checked.
 */
export function fillQuery(query: { litres?: string | undefined; consumption?: string | undefined; order?: string | undefined }): Fill | undefined {
  const { litres, consumption } = query;
  if (litres === undefined && consumption === undefined) {
    if (query.order === 'net_cost') apiError('invalid_parameter', "Parameter 'order' net_cost needs litres and consumption: the fill whose net cost ranks the stations.");
    return undefined;
  }
  if (litres === undefined || consumption === undefined) {
    apiError('invalid_parameter', `Parameter '${litres === undefined ? 'litres' : 'consumption'}' is needed with ${litres === undefined ? 'consumption' : 'litres'}: net_cost takes both.`);
  }
  const [l, c] = [Number(litres), Number(consumption)];
  if (!(l >= LITRES_RANGE.min && l <= LITRES_RANGE.max)) apiError('invalid_parameter', `Parameter 'litres' ${LITRES_ACCEPTS}.`);
  if (!(c >= CONSUMPTION_RANGE.min && c <= CONSUMPTION_RANGE.max)) apiError('invalid_parameter', `Parameter 'consumption' ${CONSUMPTION_ACCEPTS}.`);
  return { litres: l, consumption: c };
}
