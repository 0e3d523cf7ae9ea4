import type { Plugin } from 'graphql-yoga';
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { EdgeServices } from '../../../edge/services.ts';
import { metricsRegistryOf } from '../../../edge/metrics.ts';

/**
 * GraphQL operations in the server's /metrics: a counter and a latency histogram by operation type
 * and name, and errors by phase. Phase histograms and the schema-change counter are off: the typed
 * schema is picked per request (setSchema), which that counter would count as a change every time.
 * HTTP-level numbers for /graphql come from the Fastify hook like every other route.
 */
export function useOperationMetrics(services: EdgeServices): Plugin {
  return usePrometheus({
    registry: metricsRegistryOf(services),
    endpoint: false,
    metrics: {
      graphql_envelop_request: 'cms_graphql_operations_total',
      graphql_envelop_request_duration: 'cms_graphql_operation_duration_seconds',
      graphql_envelop_error_result: 'cms_graphql_errors_total',
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: false,
      graphql_envelop_phase_validate: false,
      graphql_envelop_phase_context: false,
      graphql_envelop_phase_execute: false,
      graphql_envelop_phase_subscribe: false,
      graphql_envelop_deprecated_field: false,
      graphql_envelop_schema_change: false,
      graphql_envelop_execute_resolver: false,
      graphql_yoga_http_duration: false,
    },
  });
}
