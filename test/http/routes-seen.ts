import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/config.ts';
import type { PriceStore } from '../../src/storage/store.ts';

/**
 * buildApp with an onRoute hook attached the moment the Fastify instance is created (through
 * Fastify's `fastify.initialization` diagnostics channel), so that `seen` is told of every route
 * the app registers, plugins' included.
 */
export async function buildAppSeeingRoutes(store: PriceStore, clock: Clock, seen: (route: RouteOptions & { routePath?: string; prefix?: string }) => void): Promise<FastifyInstance> {
  const onInstance = (message: unknown): void => {
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', seen);
  };
  subscribe('fastify.initialization', onInstance);
  try {
    return await buildApp({ store, clock });
  } finally {
    unsubscribe('fastify.initialization', onInstance);
  }
}
