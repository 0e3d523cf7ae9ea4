/**
 * Versions in the core schema (docs/versions.md): `Entry.versions` / `Entry.version(number)`, the
 * version type with `snapshot` and `diff(to)`, and the publish / unpublish / revert / label
 * mutations. Resolvers only convert arguments and call src/versions; the per-entry fields load
 * through the request's DataLoaders.
 */
import './types.ts';
import './entry-fields.ts';
import './publish.ts';
import './update.ts';
