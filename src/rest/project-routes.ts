import { WHOLE_PROJECT } from '../admin-scope.ts';
import { z } from 'zod';
import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import { addLocale, getProject, parseWith, removeLocale, serializeProject, setDefaultLocale, updateProjectSettings } from '../projects/operations.ts';
import { listCollections, serializeCollection } from '../collections/operations.ts';
import { localeFallbackInput, setLocaleFallback } from '../projects/locale-fallbacks.ts';

const localeBody = z.object({ locale: z.string() });

/** GET /api and GET /api/project: the project, with the content model when `with` asks for it. */
const projectRead = (url: string, summary: string): RouteDef => ({
  method: 'GET',
  url,
  successStatus: 200,
  response: { schema: ref('ProjectWithModel') },
  ability: 'read',
  summary,
  tags: ['project'],
  handler: async (ctx, { query }) => {
    const body: Record<string, unknown> = serializeProject(getProject(ctx));
    const want = parseWith(query.with);
    if (want.collections) {
      body.collections = (await listCollections(ctx)).map((c) => serializeCollection(c, { withFields: want.fields }));
    }
    return { body };
  },
});

export const projectRoutes = defineRoutes([
  projectRead('/api', 'Get the project selected by the project-id header; `with=collections,fields` embeds the content model'),
  projectRead('/api/project', 'The same as GET /api: the project (locales, default locale, locale fallbacks, settings)'),
  {
    method: 'PATCH',
    url: '/api/project',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.project,
    summary: 'Change project settings: `require_email_verification` (end users confirm their address before signing in)',
    tags: ['project'],
    body: z.object({ require_email_verification: z.boolean().optional() }),
    successStatus: 200,
    response: { schema: ref('Project') },
    handler: async (ctx, { raw }) => ({ body: serializeProject(await updateProjectSettings(ctx, raw.body)) }),
  },
  {
    method: 'POST',
    url: '/api/project/locales',
    successStatus: 200,
    response: { schema: ref('Project') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.project,
    summary: 'Add a locale to the project',
    tags: ['project'],
    body: localeBody,
    handler: async (ctx, { body }) => ({ body: serializeProject(await addLocale(ctx, (body as z.infer<typeof localeBody>).locale)) }),
  },
  {
    method: 'PUT',
    url: '/api/project/locales/default',
    successStatus: 200,
    response: { schema: ref('Project') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.project,
    summary: 'Set the default locale (adds it when missing)',
    tags: ['project'],
    body: localeBody,
    handler: async (ctx, { body }) => ({ body: serializeProject(await setDefaultLocale(ctx, (body as z.infer<typeof localeBody>).locale)) }),
  },
  {
    method: 'PATCH',
    url: '/api/project/locales/:locale',
    successStatus: 200,
    response: { schema: ref('Project') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.project,
    summary: "Set a locale's fallback ({ fallback: locale | null }): reads asked with fallback=true try it next (422: not a project locale, or a cycle)",
    tags: ['project'],
    body: localeFallbackInput,
    handler: async (ctx, { params, raw }) => ({ body: serializeProject(await setLocaleFallback(ctx, params.locale, raw.body)) }),
  },
  {
    method: 'DELETE',
    url: '/api/project/locales/:locale',
    successStatus: 200,
    response: { schema: ref('Project') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.project,
    summary: 'Remove a locale (not the default one, nor one another locale falls back to: 422)',
    tags: ['project'],
    handler: async (ctx, { params }) => ({ body: serializeProject(await removeLocale(ctx, params.locale)) }),
  },
]);
