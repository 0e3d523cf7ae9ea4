import { ref } from './openapi/components.ts';
import { defineRoutes } from './route.ts';
import { publishEntry, revertToVersion, unpublishEntry } from '../entries/operations/publish.ts';
import { diffVersions, getVersion, listVersions, updateVersion } from '../entries/versions/operations.ts';
import { versionDetail, versionItem } from '../entries/versions/serialize.ts';

const tags = ['versions'];

/**
 * Publishing and entry versions (docs/versions.md). These sit under `/api/:collection/:uuid/...`, one
 * or two segments deeper than the entry routes, so the router never confuses them with
 * `/api/:collection/:uuid`.
 */
export const versionRoutes = defineRoutes([
  {
    method: 'POST',
    url: '/api/:collection/:uuid/publish',
    successStatus: 200,
    response: { schema: ref('Published') },
    ability: 'update',
    summary: 'Publish the working draft as a new version',
    tags,
    handler: async (ctx, { params }) => {
      const r = await publishEntry(ctx, params.collection, params.uuid);
      const n = r.version.row.versionNumber;
      return { body: { message: `Content published as v${n}.`, version_number: n, entry: r.resource } };
    },
  },
  {
    method: 'POST',
    url: '/api/:collection/:uuid/unpublish',
    successStatus: 200,
    response: { schema: ref('Message') },
    ability: 'update',
    summary: 'Unpublish the entry (versions are kept)',
    tags,
    handler: async (ctx, { params }) => {
      await unpublishEntry(ctx, params.collection, params.uuid);
      return { body: { message: 'Content unpublished.' } };
    },
  },
  {
    method: 'GET',
    url: '/api/:collection/:uuid/versions',
    successStatus: 200,
    response: { schema: ref('VersionList') },
    ability: 'read',
    summary: 'List the versions of an entry, newest first',
    tags,
    handler: async (ctx, { params }) => ({ body: { data: (await listVersions(ctx, params.collection, params.uuid)).map(versionItem) } }),
  },
  {
    method: 'GET',
    url: '/api/:collection/:uuid/versions/:version',
    successStatus: 200,
    response: { schema: ref('VersionDetail') },
    ability: 'read',
    summary: 'Get one version with its snapshot',
    tags,
    handler: async (ctx, { params }) => {
      const r = await getVersion(ctx, params.collection, params.uuid, params.version);
      return { body: versionDetail(r.version, r.collection) };
    },
  },
  {
    method: 'PATCH',
    url: '/api/:collection/:uuid/versions/:version',
    successStatus: 200,
    response: { schema: ref('VersionItem') },
    ability: 'update',
    summary: 'Change the label or description of a version',
    tags,
    handler: async (ctx, { params, body }) => ({
      body: versionItem(await updateVersion(ctx, params.collection, params.uuid, params.version, body)),
    }),
  },
  {
    method: 'POST',
    url: '/api/:collection/:uuid/versions/:version/revert',
    successStatus: 200,
    response: { schema: ref('Reverted') },
    ability: 'update',
    summary: 'Restore the draft from a version and publish it as a new version',
    tags,
    handler: async (ctx, { params }) => {
      const r = await revertToVersion(ctx, params.collection, params.uuid, params.version);
      const n = r.version.row.versionNumber;
      return {
        body: {
          message: `Reverted to v${r.revertedFrom} and published as v${n}.`,
          version: versionItem(r.version),
          entry: { ...r.resource, uuid: r.entry.uuid },
          skipped: r.skipped,
        },
      };
    },
  },
  {
    method: 'GET',
    url: '/api/:collection/:uuid/versions/:version/diff',
    successStatus: 200,
    response: { schema: ref('VersionDiff') },
    ability: 'read',
    summary: 'Compare this version with version `to`, field by field',
    tags,
    handler: async (ctx, { params, query }) => ({ body: await diffVersions(ctx, params.collection, params.uuid, params.version, query.to) }),
  },
]);
