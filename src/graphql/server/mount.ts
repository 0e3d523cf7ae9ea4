import type { FastifyInstance } from 'fastify';
import type { Pipeline } from '../../edge/pipeline/index.ts';
import type { EdgeServices } from '../../edge/services.ts';
import { schema as coreSchema } from '../schema/core/index.ts';
import { createTypedSchemaCache, type TypedSchemaCache } from '../schema/typed/cache.ts';
import { answerFromCache } from './cached-answers.ts';
import { authOfRequests } from './credentials.ts';
import { sendYogaResponse } from './respond.ts';
import { createGraphqlYoga } from './yoga.ts';

const caches = new WeakMap<EdgeServices, TypedSchemaCache>();

/** The typed-schema cache of a running server (observability, tests). */
export const typedSchemaCacheOf = (services: EdgeServices): TypedSchemaCache | undefined => caches.get(services);

/**
 * Mounts GraphQL on the Fastify app: `/graphql` (GET and POST, the early lane first) and
 * `/graphql/stream` (GraphQL over SSE), both through one Yoga server and the server's one pipeline.
 */
export async function mountGraphql(app: FastifyInstance, pipeline: Pipeline): Promise<void> {
  const { services } = pipeline;
  const schemas = createTypedSchemaCache(services, coreSchema);
  caches.set(services, schemas);
  services.onClose.push(() => schemas.close());
  const authOf = authOfRequests(pipeline);
  const { yoga, conditionalGets } = createGraphqlYoga(pipeline, schemas, authOf);
  const readCache = pipeline.readCache.graphql;

  app.route({
    url: '/graphql',
    // No OPTIONS: preflights are answered as on every REST path (src/http/cors.ts).
    method: ['GET', 'POST'],
    handler: async (req, reply) => {
      if (readCache && (await answerFromCache({ cache: readCache, authOf }, req, reply))) return reply;
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      return sendYogaResponse(response, req, reply, conditionalGets);
    },
  });
  // The single-connection mode of GraphQL over SSE (src/graphql/subscriptions/single-connection.ts).
  app.route({
    url: '/graphql/stream',
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}
