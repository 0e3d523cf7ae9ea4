import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import type { Services } from '../services.ts';
import type { Ctx } from '../context.ts';
import { authenticate } from '../auth/authenticate.ts';
import { schema } from './schema/index.ts';
import type { GraphQLContext } from './builder.ts';
import { maskError } from './errors.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

export async function mountGraphql(app: FastifyInstance, services: Services): Promise<void> {
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    logging: services.log,
    maskedErrors: { maskError },
    graphiql: {
      title: 'Content gateway',
      headers: JSON.stringify({ 'project-id': '<project uuid>', Authorization: 'Bearer <token>' }, null, 2),
    },
    context: ({ request, req }) => {
      let pending: Promise<Ctx> | undefined;
      return {
        services,
        request,
        auth: () =>
          (pending ??= authenticate(services, {
            projectId: request.headers.get('project-id') ?? undefined,
            authorization: request.headers.get('authorization') ?? undefined,
          }, req.id).then(async (ctx) => {
            const key = ctx.actor.kind === 'token' ? `t:${ctx.actor.tokenId}` : `ip:${req.ip}`;
            await services.rateLimiter.consume(key, 'default');
            return ctx;
          })),
      };
    },
  });

  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}
