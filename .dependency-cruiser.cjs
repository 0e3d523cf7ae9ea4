/**
 * The architecture in its written form (README, "Architecture"), checked in CI by `npm run depcheck`.
 *
 *   entry points (src/main.ts + src/serve.ts, src/worker/, src/cli/) ── src/services.ts (composition root)
 *        │
 *   src/http (Fastify: server, REST adapter)   src/graphql (Yoga adapter, Pothos)   src/rest (route table)
 *        └───────────────┬───────────────────────────────┘
 *                    src/edge (the request pipeline, assembled once in src/edge/pipeline/: guard → admit →
 *                              budget → read cache (src/edge/read-cache/) → operation → afterWrite → classify)
 *                        │
 *   domains: src/{assets,auth,collections,entries,filtering,live,persisted,project-model,projects,users,webhooks,delivery,seed}
 *        writers (entries, users) ──→ src/events (names, outbox, port) ←── readers (src/delivery, src/live)
 *                        │
 *   kernel: src/context.ts, src/abilities.ts, src/admin-scope.ts, src/errors.ts, src/config.ts, src/logger.ts, src/uuid.ts, src/text.ts, src/input-problems.ts, src/serial-runner.ts ── src/db
 *
 * The kernel imports only the kernel and src/db: domains depend on it, never the reverse. A domain that
 * hands every request a runtime of its own (webhooks, mailer, authentication cache, token usage,
 * trusted-document memory) adds it to `Services` from its own module (`declare module '../context.ts'`).
 * Between domains, imports go one way (the full table is DOMAIN_USES below):
 *   writers ──→ src/events ←── readers   (src/events imports no domain; the composition root registers
 *                                         its in-process readers in Services)
 *   src/webhooks (administration) ──→ src/delivery (its URL rule and options only; the runtime
 *                                         through Services)
 *   src/users ··→ src/auth       (allowed, unused so far)
 *   src/auth, src/webhooks, src/delivery and src/events import neither src/users nor each other's
 *   callers; src/live reads events, never webhooks.
 * Together these keep auth, users, events, webhooks, delivery and context.ts out of any folder-level cycle.
 *
 * Type-only imports count: a cycle through types still ties the files' meaning together.
 */
const DOMAINS = 'src/(assets|auth|collections|delivery|entries|events|filtering|live|persisted|project-model|projects|releases|schedules|users|webhooks|seed)/';
const SURFACES = 'src/(http|rest|graphql)/';
const KERNEL = 'src/(context|abilities|errors|config|logger|uuid|text|input-problems|serial-runner|admin-scope)\\.ts$';


/**
 * Which domain may use which: the domain-to-domain layer, written down. Anything not listed is refused,
 * so a new edge between domains is a reviewed change of this table (and can never close a folder cycle
 * unnoticed: `scripts/folder-cycles.mjs` checks the collapsed graph too).
 *   events, collections, assets, auth, projects: the ground floor, they use no other domain (entries
 *   reads the project's locale fallback chains from projects).
 */
const DOMAIN_USES = {
  assets: [],
  auth: [],
  collections: [],
  events: [],
  projects: [],
  filtering: ['collections'],
  entries: ['assets', 'collections', 'events', 'filtering', 'projects'],
  delivery: ['events'],
  webhooks: ['delivery', 'events'],
  users: ['events', 'auth'],
  live: ['collections', 'entries', 'events', 'filtering'],
  persisted: ['projects'],
  'project-model': ['assets', 'collections', 'entries', 'persisted', 'projects', 'webhooks'],
  seed: ['auth', 'collections', 'entries', 'projects'],
  releases: ['collections', 'entries', 'events', 'schedules'],
  schedules: ['collections', 'entries', 'events'],
};
const DOMAIN_NAMES = Object.keys(DOMAIN_USES);
const domainRules = DOMAIN_NAMES.map((name) => ({
  name: `domain-${name}-uses-only-${DOMAIN_USES[name].join('-') || 'the-kernel'}`,
  severity: 'error',
  comment: `src/${name}/ may import these domains only: ${DOMAIN_USES[name].join(', ') || 'none'} (DOMAIN_USES).`,
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${DOMAIN_NAMES.filter((d) => d !== name && !DOMAIN_USES[name].includes(d)).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...domainRules,
    { name: 'no-circular', severity: 'error', comment: 'No import cycles in src/.', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'domains-know-no-surface',
      severity: 'error',
      comment: 'Operations never import an HTTP/GraphQL surface or the request pipeline: they get what they need through Ctx.',
      from: { path: `^(${DOMAINS}|${KERNEL})` },
      to: { path: `^(${SURFACES}|src/edge/)` },
    },
    {
      name: 'kernel-imports-only-kernel',
      severity: 'error',
      comment: 'Kernel files (Ctx, Services, errors, config) import only each other and src/db; a domain adds its runtime to Services itself.',
      from: { path: `^${KERNEL}` },
      to: { path: '^src/', pathNot: `^(src/db/|${KERNEL})` },
    },
    {
      name: 'auth-knows-no-users-or-webhooks',
      severity: 'error',
      comment: 'API-token authentication sits below end-user accounts, events and webhooks.',
      from: { path: '^src/auth/' },
      to: { path: '^src/(users|events|webhooks|delivery)/' },
    },
    {
      name: 'webhooks-know-no-users-or-auth',
      severity: 'error',
      comment: 'Writers (users among them) record events in the outbox; webhooks and their delivery never call back into them.',
      from: { path: '^src/(webhooks|delivery)/' },
      to: { path: '^src/(users|auth)/' },
    },
    {
      name: 'events-know-no-domain',
      severity: 'error',
      comment:
        'The events module sits between writers and readers: it imports no reader (webhooks, delivery, live) and no writer, ' +
        'only the kernel and src/db. Readers reach it through its port; in-process readers are registered by the composition root.',
      from: { path: '^src/events/' },
      to: { path: '^src/', pathNot: `^(src/events/|src/db/|${KERNEL})` },
    },
    {
      name: 'live-reads-only-events',
      severity: 'error',
      comment: 'Live subscriptions consume committed events through src/events, never webhook administration or delivery.',
      from: { path: '^src/live/' },
      to: { path: '^src/(webhooks|delivery)/' },
    },
    {
      name: 'delivery-knows-no-webhook-administration',
      severity: 'error',
      comment: 'Delivery sends what the outbox and the webhooks table say; it never calls the operations routes use.',
      from: { path: '^src/delivery/' },
      to: { path: '^src/webhooks/' },
    },
    {
      name: 'webhook-administration-uses-no-delivery-runtime',
      severity: 'error',
      comment:
        'Administration checks a URL by the rule delivery applies (url-safety, options); the runtime (enqueue, options in force) ' +
        'it reaches only through Services, which src/delivery/runtime.ts extends.',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/delivery/', pathNot: '^src/delivery/(url-safety|options)\\.ts$' },
    },
    {
      name: 'edge-knows-no-surface',
      severity: 'error',
      comment: 'The request pipeline is shared by REST and GraphQL and knows neither (nor Fastify/Yoga).',
      from: { path: '^src/edge/' },
      to: { path: `^${SURFACES}` },
    },
    {
      name: 'edge-knows-no-framework',
      severity: 'error',
      from: { path: '^src/edge/' },
      to: { path: '(^|/)node_modules/(fastify|graphql-yoga|@pothos)/' },
    },
    {
      name: 'credentials-only-through-the-pipeline',
      severity: 'error',
      comment: 'Both surfaces and both early lanes authenticate through src/edge/pipeline/ (one policy for refused credentials), never on their own.',
      from: { path: `^${SURFACES}` },
      to: { path: '^src/auth/authenticate\\.ts$' },
    },
    {
      name: 'graphql-plugins-know-no-server',
      severity: 'error',
      comment: 'Yoga plugins (src/graphql/plugins/<phase>/use-*.ts) are listed by src/graphql/server/yoga.ts and know neither the mounting nor GraphiQL.',
      from: { path: '^src/graphql/plugins/' },
      to: { path: '^src/graphql/(server|graphiql)/' },
    },
    {
      name: 'surfaces-do-not-touch-db',
      severity: 'error',
      comment: 'REST routes and GraphQL resolvers reach data through operations; the builder alone needs the generated Pothos types.',
      from: { path: '^src/(rest|graphql)/' },
      to: { path: '^src/db/', pathNot: '^src/db/generated/(pothos-types\\.ts|prisma/)' },
    },
    {
      name: 'graphql-and-rest-are-separate',
      severity: 'error',
      comment: 'Neither surface depends on the other.',
      from: { path: '^src/graphql/' },
      to: { path: '^src/(rest|http)/' },
    },
    {
      name: 'rest-does-not-import-graphql',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/(graphql|http)/' },
    },
    {
      name: 'db-imports-no-domain',
      severity: 'error',
      comment: 'src/db is the bottom layer: it may use the logger, config and errors, nothing above.',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db/|logger\\.ts$|config\\.ts$|errors\\.ts$|uuid\\.ts$|text\\.ts$)' },
    },
    {
      name: 'composition-root-only-from-entry-points',
      severity: 'error',
      comment: 'src/services.ts builds the process; only entry points import it. Everything else takes Services (src/context.ts) as a type.',
      from: { path: '^src/', pathNot: '^src/(main\\.ts|serve\\.ts|worker/|cli/)' },
      to: { path: '^src/services\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/generated/prisma/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
