import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { Kind, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { missingAbility } from '../../../abilities.ts';
import { droppedFieldAbility } from '../../schema/common/schema-variant.ts';
import { maskError } from '../result/mask-error.ts';

/**
 * A token's schema leaves out the root fields it lacks the ability for (src/graphql/schema/common/
 * schema-variant.ts), so GraphiQL and codegen never offer them. A document that names one anyway is
 * told why, with the same FORBIDDEN refusal (403) the operation itself gives, instead of graphql's
 * "Cannot query field": the field exists, just not for this token.
 */
function refusals(schema: GraphQLSchema, document: DocumentNode): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const sel of def.selectionSet.selections) {
      if (sel.kind !== Kind.FIELD) continue;
      const ability = droppedFieldAbility(schema, def.operation, sel.name.value);
      if (ability) errors.push(maskError(missingAbility(ability), ''));
    }
  }
  return errors;
}

export function useAbilityRefusals(log: Logger): Plugin {
  return {
    onValidate({ params }) {
      const errors = refusals(params.schema, params.documentAST);
      if (errors.length === 0) return;
      // A client error, logged as the mask logs the operations' own refusals (./../result/mask-error.ts).
      log.debug({ code: 'FORBIDDEN', status: 403, message: errors[0].message }, 'graphql client error');
      // Thrown, not set as the validation result: Yoga then answers a request error on every
      // transport (an event stream too) with the error's own status, 403, as the operation would.
      throw errors[0];
    },
  };
}
