import { builder } from '../common/builder.ts';
import { addLocale, getProject, removeLocale, setDefaultLocale, updateProjectSettings } from '../../../projects/operations.ts';

export const ProjectType = builder.prismaObject('Project', {
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    plan: t.exposeString('plan'),
    defaultLocale: t.exposeString('defaultLocale'),
    locales: t.exposeStringList('locales'),
    requireEmailVerification: t.exposeBoolean('requireEmailVerification', { description: 'End users must confirm their email address before they can sign in.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryField('project', (t) =>
  t.field({
    nullable: true,
    type: ProjectType,
    description: 'The project selected by the project-id header.',
    extensions: { ability: 'read' },
    resolve: async (_root, _args, context) => getProject(await context.auth()),
  }),
);

builder.mutationFields((t) => ({
  addProjectLocale: t.field({
    type: ProjectType,
    extensions: { ability: 'admin' },
    nullable: true,
    args: { locale: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => addLocale(await context.auth(), args.locale),
  }),
  removeProjectLocale: t.field({
    type: ProjectType,
    extensions: { ability: 'admin' },
    nullable: true,
    args: { locale: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => removeLocale(await context.auth(), args.locale),
  }),
  updateProjectSettings: t.field({
    nullable: true,
    type: ProjectType,
    description: 'Project settings; arguments left out keep their value.',
    extensions: { ability: 'admin' },
    args: { requireEmailVerification: t.arg.boolean() },
    resolve: async (_root, args, context) =>
      updateProjectSettings(await context.auth(), args.requireEmailVerification == null ? {} : { require_email_verification: args.requireEmailVerification }),
  }),
  setDefaultProjectLocale: t.field({
    type: ProjectType,
    extensions: { ability: 'admin' },
    nullable: true,
    args: { locale: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => setDefaultLocale(await context.auth(), args.locale),
  }),
}));
