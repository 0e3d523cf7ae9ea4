import type { GraphQLArgument, GraphQLField, GraphQLInputType, GraphQLOutputType, GraphQLSchema } from 'graphql';

// Duck-typed on purpose: Pothos and the typed schema may load graphql's CJS build while this file gets
// the ESM one, and graphql's own predicates (instanceof) refuse types from "another realm".
type AnyType = GraphQLInputType | GraphQLOutputType;
const isNonNull = (t: AnyType): boolean => t.constructor.name === 'GraphQLNonNull';
const isList = (t: AnyType): boolean => t.constructor.name === 'GraphQLList';
const inner = (t: AnyType): AnyType => (t as unknown as { ofType: AnyType }).ofType;
const named = (t: AnyType): AnyType => (isNonNull(t) || isList(t) ? named(inner(t)) : t);
const isLeaf = (t: AnyType): boolean => ['GraphQLScalarType', 'GraphQLEnumType'].includes(named(t).constructor.name);

/**
 * Turns every root field of a schema into a runnable operation (document + variables), so the
 * authorization matrix covers a new GraphQL field without anyone writing a case for it.
 */
export interface RootOperation {
  kind: 'query' | 'mutation';
  name: string;
  ability: unknown;
  document: string;
  variables: Record<string, unknown>;
}

/** Argument values by `field.arg`, then by arg name; ids come from the world so lookups succeed. */
export function argValue(params: Record<string, string>, field: string, arg: GraphQLArgument): unknown {
  const byName: Record<string, unknown> = {
    uuid: /Field$/.test(field) ? params.fieldUuid : params.uuid,
    slug: params.slug,
    confirmSlug: params.slug,
    collection: params.collection,
    locale: /Locale$/.test(field) ? params.locale : undefined,
    version: Number(params.version),
    webhook: params.webhook,
    id: params.id,
  };
  // A collection without fields makes the typed schema invalid (reported separately); the matrix is
  // about authorization, so it creates a collection with one field.
  if (field === 'createCollection' && arg.name === 'input') return { name: 'Matrix made', slug: 'matrix-made', fields: [{ type: 'text', label: 'T', name: 't' }] };
  if (arg.name in byName && byName[arg.name] !== undefined) return byName[arg.name];
  return sample(arg.type, params, 0);
}

function sample(type: GraphQLInputType, params: Record<string, string>, depth: number): unknown {
  if (isNonNull(type)) return sample(inner(type) as GraphQLInputType, params, depth);
  if (isList(type)) return [];
  const kind = type.constructor.name;
  if (kind === 'GraphQLEnumType') return (type as unknown as { getValues(): Array<{ name: string }> }).getValues()[0]?.name;
  if (kind === 'GraphQLScalarType') {
    switch ((type as { name: string }).name) {
      case 'Int':
      case 'Float':
        return 1;
      case 'Boolean':
        return false;
      case 'ID':
        return params.uuid;
      case 'JSON':
        return {};
      case 'DateTime':
        return new Date(Date.now() + 3_600_000).toISOString();
      default:
        return 'x';
    }
  }
  if (kind === 'GraphQLInputObjectType') {
    const out: Record<string, unknown> = {};
    if (depth > 3) return out;
    const fields = (type as unknown as { getFields(): Record<string, { name: string; type: GraphQLInputType }> }).getFields();
    for (const f of Object.values(fields)) if (isNonNull(f.type)) out[f.name] = sample(f.type, params, depth + 1);
    return out;
  }
  return null;
}

function operation(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, params: Record<string, string>): RootOperation {
  const decls: string[] = [];
  const uses: string[] = [];
  const variables: Record<string, unknown> = {};
  for (const arg of field.args) {
    const required = isNonNull(arg.type) && arg.defaultValue === undefined;
    if (!required) continue;
    decls.push(`$${arg.name}: ${String(arg.type)}`);
    uses.push(`${arg.name}: $${arg.name}`);
    variables[arg.name] = argValue(params, field.name, arg);
  }
  const selection = isLeaf(field.type) ? '' : ' { __typename }';
  const head = decls.length ? `(${decls.join(', ')})` : '';
  const call = uses.length ? `(${uses.join(', ')})` : '';
  return {
    kind,
    name: field.name,
    ability: field.extensions?.ability,
    document: `${kind} Matrix${head} { ${field.name}${call}${selection} }`,
    variables,
  };
}

export function rootOperations(schema: GraphQLSchema, params: Record<string, string>): RootOperation[] {
  const out: RootOperation[] = [];
  for (const [kind, type] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) out.push(operation(kind, field, params));
  }
  return out;
}

type GraphqlBody = { errors?: Array<{ message?: string; extensions?: { code?: string; status?: number } }> } | undefined;

/**
 * HTTP-equivalent status of a GraphQL answer: 200 without errors, else the first error's status when
 * it is one of ours (it carries `code`). Anything else (a syntax or variables error) is reported as
 * its message so a broken document cannot pass for a 400.
 */
export function graphqlOutcome(res: { status: number; body: GraphqlBody }): number | string {
  const err = res.body?.errors?.[0];
  if (!err) return res.status;
  if (err.extensions?.code && typeof err.extensions.status === 'number') return err.extensions.status;
  return `${res.status} ${err.extensions?.code ?? ''} ${err.message ?? ''}`;
}
