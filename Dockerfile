# The API (and, unless WORKER_IN_PROCESS=false, webhook delivery). TypeScript runs through tsx, so
# there is no build step; the Prisma client is generated into the repository.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

COPY package.json package-lock.json ./
# Install scripts stay off, as on the development machines: nothing here needs them (Prisma 7 runs
# on driver adapters without native engines).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY . .
# Embedded mode (no DATABASE_URL) keeps its data here; mount a volume on it to keep it.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

ENV PORT=4000 HOST=0.0.0.0
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"

CMD ["npm", "start"]
