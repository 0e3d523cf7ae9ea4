# One image for the API server and the webhook worker (docker-compose.yml chooses the command).
# The TypeScript is compiled to dist/ at build time (scripts/build.mjs, esbuild): the processes start
# on plain JavaScript, with nothing to transform. The Prisma client is generated into the repository.
#
# Node 22 LTS: package.json "engines" (^22.15.0 || >=24.0.0) is the range every installed package
# accepts. graphql-yoga's @graphql-tools and @whatwg-node packages need >= 22.15, fastify's cookie
# and prisma's @prisma/streams-local need >= 22, and prisma and dependency-cruiser leave out 23.
# The tag follows the 22 line's patch releases; test/deploy/image.test.ts checks it against engines.

FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (esbuild, which compiles dist/, included). Install scripts stay off, as on the development
# machines: nothing here needs them (Prisma 7 runs on driver adapters without native engines).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
# Copied from the first stage so npm's cache and the lock-only layer stay out of the image.
COPY --from=deps /app/node_modules ./node_modules
COPY . .
RUN node scripts/build.mjs
# Embedded mode (no DATABASE_URL) keeps its data here; mount a volume on it to keep it.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

EXPOSE 4000
# The API's readiness. The worker serves no HTTP: docker-compose.yml gives it `cms health` instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself is the main process (no npm or tsx launcher in between), so SIGTERM from
# `docker stop` reaches the server's shutdown handler directly.
CMD ["node", "dist/main.js"]
