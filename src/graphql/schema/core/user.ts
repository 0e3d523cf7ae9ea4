import { builder } from '../common/builder.ts';
import { FLAT_PAGING_DEPRECATED, PageInfoType, RELAY_ARG_DESCRIPTIONS, edgeType, edgesOf, pageArgsFor, pagePosition } from '../common/page-info.ts';
import { DEFAULT_PER_PAGE } from '../../limits.ts';
import { deleteUser, getUser, listUsers, updateUser, type UserPage } from '../../../users/admin.ts';
import type { AdminUserView } from '../../../users/serialize.ts';

/**
 * A project's end users, the GraphQL twin of src/rest/user-routes.ts (same operations, same errors).
 * Root fields say `projectUser…`: core root names are reserved in every typed schema, and plain
 * `users`/`user` would rename the fields of a collection called "users".
 */

const ProjectUserType = builder.objectRef<AdminUserView>('ProjectUser').implement({
  description: 'An end user of the project (signed up through /api/auth). Never carries a password hash or token.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    email: t.exposeString('email'),
    displayName: t.string({ nullable: true, resolve: (u) => u.display_name }),
    emailVerifiedAt: t.field({ type: 'DateTime', nullable: true, resolve: (u) => u.email_verified_at }),
    metadata: t.field({ type: 'JSON', resolve: (u) => u.metadata }),
    disabled: t.exposeBoolean('disabled', { description: 'A disabled user can neither sign in nor refresh; their tokens stop working.' }),
    disabledAt: t.field({ type: 'DateTime', nullable: true, resolve: (u) => u.disabled_at }),
    lastLoginAt: t.field({ type: 'DateTime', nullable: true, resolve: (u) => u.last_login_at }),
    createdAt: t.field({ type: 'DateTime', resolve: (u) => u.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (u) => u.updated_at }),
  }),
});

const ProjectUserEdgeType = edgeType('ProjectUserEdge', ProjectUserType);

const ProjectUserPageType = builder.objectRef<UserPage>('ProjectUserPage').implement({
  fields: (t) => ({
    data: t.field({ type: [ProjectUserType], resolve: (p) => p.data }),
    edges: t.field({ type: [ProjectUserEdgeType], resolve: (p) => edgesOf(p.data, p.meta.current_page, p.meta.per_page) }),
    pageInfo: t.field({ type: PageInfoType, resolve: (p) => pagePosition(p.meta.total, p.meta.current_page, p.meta.per_page, p.data.length) }),
    currentPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.meta.current_page }),
    perPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.meta.per_page }),
    total: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.meta.total }),
    lastPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.meta.last_page }),
  }),
});

const UpdateUserInput = builder.inputType('UpdateProjectUserInput', {
  fields: (t) => ({
    disabled: t.boolean({ description: 'True signs the user out everywhere and refuses their sign-ins.' }),
    emailVerified: t.boolean(),
    displayName: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  projectUsers: t.field({
    nullable: true,
    type: ProjectUserPageType,
    description: "The project's end users, newest first.",
    extensions: { ability: 'admin' },
    args: {
      page: t.arg.int(),
      perPage: t.arg.int(),
      search: t.arg.string(),
      first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
      after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
    },
    resolve: async (_root, args, context) => {
      const paging = pageArgsFor(args, DEFAULT_PER_PAGE);
      return listUsers(await context.auth(), { page: paging.page, per_page: paging.perPage, search: args.search ?? undefined });
    },
  }),
  projectUser: t.field({
    nullable: true,
    type: ProjectUserType,
    extensions: { ability: 'admin' },
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => getUser(await context.auth(), args.uuid),
  }),
}));

builder.mutationFields((t) => ({
  updateProjectUser: t.field({
    nullable: true,
    type: ProjectUserType,
    extensions: { ability: 'admin' },
    args: { uuid: t.arg.string({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: async (_root, args, context) => {
      const { disabled, emailVerified, displayName, metadata } = args.input;
      const body: Record<string, unknown> = {};
      if (disabled != null) body.disabled = disabled;
      if (emailVerified != null) body.email_verified = emailVerified;
      if (displayName !== undefined) body.display_name = displayName;
      if (metadata != null) body.metadata = metadata;
      return updateUser(await context.auth(), args.uuid, body);
    },
  }),
  disableProjectUser: t.field({
    nullable: true,
    type: ProjectUserType,
    description: 'Shorthand for updateProjectUser(input: { disabled: true }).',
    extensions: { ability: 'admin' },
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => updateUser(await context.auth(), args.uuid, { disabled: true }),
  }),
  deleteProjectUser: t.field({
    nullable: true,
    type: 'Boolean',
    extensions: { ability: 'admin' },
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteUser(await context.auth(), args.uuid);
      return true;
    },
  }),
}));
