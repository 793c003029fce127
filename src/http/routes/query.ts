import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors/catalogue.ts';
import { type Near, parseNear, parseRadius } from '../../domain/nearby.ts';
import { NEAR_MESSAGES } from '../../schemas/api.ts';

interface QueryProperty { type?: string; 'x-accepts'?: string }

const PLAIN_DECIMAL = /^[0-9]{1,10}$/;

/** Parameters whose values are written in lowercase (ids, format), accepted in any case. */
const CASE_INSENSITIVE: ReadonlySet<string> = new Set(['state', 'city', 'city_id', 'brand', 'fuel', 'format']);

/**
 * Runs before schema validation: Ajv would coerce '1e3', ' 10' or '0x10' into integers, so
 * integer query parameters must first be plain decimal digits. Ids (`state`, `city`, `brand`, `fuel`) and `format` are case-insensitive.
 */
export async function strictQuery(request: FastifyRequest): Promise<void> {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, QueryProperty> } | undefined;
  const properties = schema?.properties;
  if (!properties) return;
  const query = request.query as Record<string, unknown>;
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
