import type { Plugin } from 'graphql-yoga';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';

/**
 * GraphQL-only limits (docs/graphql.md, "Limits"). Depth and cost are measured on the operation
 * about to run, before any resolver: a rejected query costs no database work. Cost follows the
 * complexity annotations of the schema (typed list queries multiply their selection by `perPage`,
 * other lists by 10, every field costs 1); introspection fields are free so GraphiQL always works.
 */

export interface LimitOptions {
  maxDepth: number;
  maxComplexity: number;
  introspection: boolean;
}

export interface OperationCost {
  depth: number;
  complexity: number;
}

function selectedOperation(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
}

/** Costs of operations without variables depend only on (schema, document): computed once. */
const costCache = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, OperationCost>>();

export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  context: object,
): OperationCost | null {
  const op = selectedOperation(document, operationName);
  if (!op) return null;
  const cacheable = !op.variableDefinitions?.length;
  const bySchema = costCache.get(schema);
  const hit = cacheable ? bySchema?.get(document) : undefined;
  if (hit) return hit;
  const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
  let cost: OperationCost;
  try {
    const r = complexityFromQuery(single, { schema, variables: variables ?? {}, ctx: context });
    cost = { depth: r.depth, complexity: r.complexity };
  } catch {
    // Invalid variables: execution rejects them itself before any resolver runs.
    return null;
  }
  if (cacheable) {
    const map = bySchema ?? new WeakMap<DocumentNode, OperationCost>();
    map.set(document, cost);
    if (!bySchema) costCache.set(schema, map);
  }
  return cost;
}

function limitError(code: 'QUERY_TOO_DEEP' | 'QUERY_TOO_COMPLEX', message: string, actual: number, limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, actual, limit, http: { status: 400 } } });
}

/**
 * With GRAPHQL_INTROSPECTION=false: `__schema` and `__type` are refused (`__typename` stays, clients
 * need it). Written on the AST only, so it works whichever graphql build the schema came from.
 */
const NoIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        new GraphQLError('GraphQL introspection is disabled on this server.', { nodes: node, extensions: { code: 'INTROSPECTION_DISABLED' } }),
      );
    }
  },
});

export function useQueryLimits(opts: LimitOptions): Plugin {
  return {
    onValidate({ addValidationRule }) {
      if (!opts.introspection) addValidationRule(NoIntrospection);
    },
    // Subscriptions too: a refused subscription never reaches its subscribe resolver, on any transport.
    onExecute: ({ args, setResultAndStopExecution }) => refuseCostly(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => refuseCostly(args, setResultAndStopExecution),
  };

  function refuseCostly(args: ExecutionArgs, stop: (result: ExecutionResult) => void): void {
    const cost = measureOperation(args.schema, args.document, args.operationName, args.variableValues ?? undefined, (args.contextValue ?? {}) as object);
    if (!cost) return;
    if (cost.depth > opts.maxDepth) {
      stop({ errors: [limitError('QUERY_TOO_DEEP', `The query is ${cost.depth} levels deep; the limit is ${opts.maxDepth}.`, cost.depth, opts.maxDepth)] });
    } else if (cost.complexity > opts.maxComplexity) {
      stop({
        errors: [
          limitError(
            'QUERY_TOO_COMPLEX',
            `The query costs ${cost.complexity}; the limit is ${opts.maxComplexity}. Ask for fewer fields or smaller pages (perPage).`,
            cost.complexity,
            opts.maxComplexity,
          ),
        ],
      });
    }
  }
}
