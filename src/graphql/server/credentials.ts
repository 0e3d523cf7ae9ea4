import type { FastifyRequest } from 'fastify';
import type { Pipeline, RequestCredentials } from '../../edge/pipeline/index.ts';
import type { AuthOf } from '../plugins/request/gate.ts';

/** What the pipeline reads of a GraphQL request: the same headers REST reads, the client address and the request id. */
export const credentialsOf = (req: FastifyRequest): RequestCredentials => ({
  projectId: typeof req.headers['project-id'] === 'string' ? req.headers['project-id'] : undefined,
  authorization: req.headers.authorization,
  ip: req.ip,
  requestId: req.id,
  readAfter: req.headers['read-after'],
});

export type { AuthOf };

/**
 * The pipeline's stages 2-3 for a GraphQL request: one authentication and one charge per HTTP request,
 * whoever asks first (the early lane, the gate, the schema choice, a resolver, the stream protocol),
 * because the pipeline keys its promise by the request object Fastify hands every one of them.
 */
export const authOfRequests = (pipeline: Pipeline): AuthOf => (req) => pipeline.admit(req, credentialsOf(req));
