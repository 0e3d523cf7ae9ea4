import { Registry, collectDefaultMetrics } from 'prom-client';
import type { EdgeServices } from './services.ts';

const registries = new WeakMap<EdgeServices, Registry>();

/**
 * The Prometheus registry of one server (src/http/metrics.ts serves it; the HTTP hooks and the GraphQL
 * plugin record into it). One per Services rather than prom-client's global one, so several servers
 * in one process (tests) keep their counts apart.
 */
export function metricsRegistryOf(services: EdgeServices): Registry {
  let registry = registries.get(services);
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'cms_' });
    registries.set(services, registry);
  }
  return registry;
}
