/**
 * Ceiling child: graphql-yoga as it comes (default plugins, its own node:http adapter), a one-field
 * schema, to measure the floor Yoga's per-request machinery sets for `{ __typename }`.
 */
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } }),
  logging: false,
  graphiql: false,
});
const server = createServer(yoga);
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
