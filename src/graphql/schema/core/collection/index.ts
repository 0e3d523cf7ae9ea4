/**
 * Collections and fields admin: the GraphQL twin of src/rest/collection-routes.ts (same operations).
 * The reads, the collection mutations and the field mutations each have their own file.
 */
import './types.ts';
import './queries.ts';
import './collections.ts';
import './fields.ts';
