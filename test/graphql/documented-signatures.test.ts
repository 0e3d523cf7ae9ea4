import { readFileSync } from 'node:fs';
import type { FieldDefinitionNode, GraphQLField, GraphQLSchema, ObjectTypeDefinitionNode, ObjectTypeExtensionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentedProjectSchema, graphql, rootField, signatureOf, typeFields } from './doc-signatures.ts';

const { buildSchema, Kind, parse, print } = graphql;

/**
 * docs/graphql.md promises signatures; this holds them against the schemas the server builds: the
 * typed-schema table (every root field of a collection `blog-posts`, written in full) and every
 * `graphql` block of type definitions (`type` = all the type's fields, `extend type` = an excerpt),
 * against a project with that collection and, for core types, against the printed schema.graphql.
 */
const DOC = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8');
const typed = documentedProjectSchema();
const core = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

/** Arguments sorted by name: the printed core schema sorts them, the built one keeps their order. */
const normalise = (sig: string): string => {
  const m = /^(\w+)(?:\((.*)\))?: (.+)$/.exec(sig);
  if (!m) return sig;
  const args = m[2] ? m[2].split(/, (?=\w+:)/).sort() : [];
  return `${m[1]}${args.length ? `(${args.join(', ')})` : ''}: ${m[3]}`;
};
const fromSchema = (f: GraphQLField<unknown, unknown>) => normalise(signatureOf(f));
const fromDoc = (node: FieldDefinitionNode) =>
  normalise(`${node.name.value}${node.arguments?.length ? `(${node.arguments.map((a) => print(a)).join(', ')})` : ''}: ${print(node.type)}`);

/** The first cells of the typed-schema table, in the section "The typed schema". */
function tableSignatures(): string[] {
  const section = DOC.slice(DOC.indexOf('## The typed schema'), DOC.indexOf('### `where`, `sort`'));
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]).filter((cell) => !cell.startsWith('type '));
}

/** Type blocks (```graphql fences holding type definitions only; operation examples are skipped). */
function typeBlocks(): Array<ObjectTypeDefinitionNode | ObjectTypeExtensionNode> {
  const out: Array<ObjectTypeDefinitionNode | ObjectTypeExtensionNode> = [];
  for (const m of DOC.matchAll(/```graphql\n([\s\S]*?)```/g)) {
    const source = m[1].replace(/^ {2}/gm, '');
    let defs;
    try {
      defs = parse(source).definitions;
    } catch {
      continue;
    }
    if (defs.every((d) => d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION)) out.push(...(defs as Array<ObjectTypeDefinitionNode | ObjectTypeExtensionNode>));
  }
  return out;
}

describe('docs/graphql.md signatures against the served schemas', () => {
  it('the typed-schema table writes every collection root field in full, as the schema has it', () => {
    const rows = tableSignatures();
    expect(rows.length).toBeGreaterThanOrEqual(14);
    const problems: string[] = [];
    for (const row of rows) {
      const name = /^(\w+)/.exec(row)![1];
      const field = rootField(typed, name);
      if (!field) problems.push(`${row}: no root field ${name}`);
      else if (normalise(row) !== fromSchema(field)) problems.push(`documented ${row}\n   served    ${signatureOf(field)}`);
    }
    expect(problems).toEqual([]);
    // Complete: every root field the collection adds is in the table.
    const coreRoots = new Set([...Object.keys(core.getQueryType()!.getFields()), ...Object.keys(core.getMutationType()!.getFields())]);
    const documented = new Set(rows.map((r) => /^(\w+)/.exec(r)![1]));
    const added = [typed.getQueryType()!, typed.getMutationType()!].flatMap((root) => Object.keys(root.getFields())).filter((n) => !coreRoots.has(n) && /BlogPost/.test(n));
    expect(added.filter((n) => !documented.has(n))).toEqual([]);
  });

  it('every documented type block matches the typed schema and, for core types, schema.graphql', () => {
    const blocks = typeBlocks();
    expect(blocks.map((b) => b.name.value)).toEqual(expect.arrayContaining(['PageInfo', 'EntryVersionConnection', 'BlogPostPage', 'Mutation']));
    const problems: string[] = [];
    for (const block of blocks) {
      const type = block.name.value;
      for (const [label, schema] of [['typed', typed], ['core', core]] as Array<[string, GraphQLSchema]>) {
        const fields = typeFields(schema, type);
        if (!fields) {
          if (label === 'typed') problems.push(`${type}: not in the typed schema`);
          continue; // a typed-only type (BlogPostPage) has no core counterpart
        }
        const documented = block.fields ?? [];
        for (const node of documented) {
          const field = fields[node.name.value];
          if (!field) problems.push(`${label} ${type}.${node.name.value}: no such field`);
          else if (fromDoc(node) !== fromSchema(field)) problems.push(`${label} ${type}: documented ${print(node)}, served ${signatureOf(field)}`);
        }
        if (block.kind === Kind.OBJECT_TYPE_DEFINITION) {
          const missing = Object.keys(fields).filter((n) => !documented.some((d) => d.name.value === n) && !fields[n].deprecationReason);
          if (missing.length) problems.push(`${label} ${type}: undocumented fields ${missing.join(', ')} (use \`extend type\` for an excerpt)`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
