/**
 * Examples per version in the documents: a schema the version rebuilt shows the examples `had({ examples })` gave
 * it, or HEAD's migrated as responses are, and keeps only those that validate ({@link VersionExamples.finish}).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { everySubschema, mapSubschemas } from '../core/subschemas'
import { kGivenExamples, kHeadSchema } from '../core/symbols'
import { routeSchemas } from '../routes/version-plan'
import { prepareSchema } from '../routes/prepared-schemas'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'
import { migrateWith, type MigrationEngine } from '../serve/migrate-response-body'
import { leaveOut, walkDocument } from './example-sites'
import { DocumentValidator } from './example-validation'

type Json = Record<string, unknown>

/**
 * Marks a schema node whose examples the finished document keeps only when they validate (removed then).
 * @example
 * ```ts
 * const marked = node[CHECK_EXAMPLES] === true
 * ```
 */
const CHECK_EXAMPLES = 'x-fastify-versioner-check-examples'

/**
 * The schemas an application wrote for HEAD: its routes' parts and responses (in every version), its webhooks' bodies.
 * @example
 * ```ts
 * const examples = new VersionExamples(engine, () => headSchemas(state, webhooks))
 * ```
 */
export function headSchemas (state: VersionerState, webhooks: Webhooks): TSchema[] {
  const roots: unknown[] = [...state.headRoutes.flatMap((route) => routeSchemas(route)), ...webhooks.list().map((webhook) => webhook.body)]
  return roots.filter((root): root is TSchema => isSchemaObject(root))
}

/**
 * The examples of each version's documents, for one application.
 * @example
 * ```ts
 * const examples = new VersionExamples({ bundle, generation, planner }, () => headSchemas(state, webhooks))
 * const schema = examples.at(form, level)  // before @fastify/swagger
 * examples.finish(document, level)                                   // on the finished document
 * ```
 */
export class VersionExamples {
  /** Every node of the schemas the application wrote for HEAD (collected on first use). */
  private heads: ReadonlySet<object> | undefined
  private readonly forms: Array<WeakMap<object, TSchema>> = []
  private readonly migrated: Array<WeakMap<object, unknown[]>> = []
  private readonly marked = new Set<number>()

  /**
   * @param engine the application's converters and schemas (those `migrateResponseBody` uses)
   * @param roots the schemas the application wrote (read on first use, once every route is known)
   */
  constructor (private readonly engine: MigrationEngine, private readonly roots: () => readonly TSchema[]) {}

  /** A form of the version at `level` prepared for its document, with that version's examples; HEAD's own as they are. */
  at (schema: TSchema, level: number): TSchema {
    const heads = this.heads ??= everySubschema(this.roots())
    const inProgress = new Set<object>()
    const forms = this.forms[level] ??= new WeakMap()
    const visit = (node: TSchema): TSchema => {
      if (heads.has(node) || inProgress.has(node)) return node
      const known = forms.get(node)
      if (known !== undefined) return known
      inProgress.add(node)
      const result = this.withExamples(mapSubschemas(node, visit), level)
      inProgress.delete(node)
      forms.set(node, result)
      return result
    }
    return visit(prepareSchema(schema, this.engine.generation, 'docs'))
  }

  /** Leaves out of the finished document of `level` the examples of marked schemas that fail, and removes the marks. */
  finish (document: Json, level: number): void {
    if (!this.marked.has(level)) return
    // A marked node holds examples, or is the schema of those @fastify/swagger moved to a parameter or media type.
    const checked = walkDocument(document).filter((site) => site.schema[CHECK_EXAMPLES] === true)
    if (checked.length === 0) return
    const validator = new DocumentValidator(document, this.engine.ajv)
    leaveOut(checked.filter((site) => validator.check(site.schemaPointer, site.value) !== undefined))
    for (const { schema } of checked) delete schema[CHECK_EXAMPLES]
  }

  /** One rebuilt node with the version's examples (see the module). */
  private withExamples (node: TSchema, level: number): TSchema {
    const source = node as SchemaObject
    if (source[kGivenExamples] === true) return node
    const head = source[kHeadSchema]
    let copy = source
    if (isSchemaObject(head) && Array.isArray(head.examples)) {
      // In the place the schema has them.
      copy = { ...source, examples: this.migrate(head as TSchema, head.examples, level) }
      if ((copy.examples as unknown[]).length === 0) delete copy.examples
    }
    if (!(Array.isArray(copy.examples) && copy.examples.length > 0) && !Object.hasOwn(copy, 'example')) return copy as TSchema
    this.marked.add(level)
    return { ...copy, [CHECK_EXAMPLES]: true } as TSchema
  }

  /** HEAD's examples of `head` migrated to `level`; one whose migration throws or is async is left out. */
  private migrate (head: TSchema, examples: readonly unknown[], level: number): unknown[] {
    const done = this.migrated[level] ??= new WeakMap()
    const known = done.get(head)
    if (known !== undefined) return known
    const version = this.engine.generation.levels[level]
    const result: unknown[] = []
    for (const example of examples) {
      try {
        const migrated = migrateWith(this.engine, head, { latestBody: example, version })
        if (migrated instanceof Promise) migrated.catch(() => {})
        else result.push(migrated)
      } catch {
        // A converter that fails on this example: it is not shown.
      }
    }
    done.set(head, result)
    return result
  }
}
