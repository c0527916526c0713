/**
 * The headers of a HEAD response as each version's clients read them: `verify` sends HEAD's response with a value
 * for every header HEAD documents for its status, and after the converters of each version change the headers a
 * version documents for the status answered there must have arrived (by lower-case name), each matching its schema
 * as text ([decision 0286](../../docs/decisions/0286-verify-follows-the-status-a-version-answers.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import type { Check } from '../core/strict-validator'
import type { SchemaSlots } from '../routes/schema-forms'
import type { HeadRoute } from '../routes/versioner-state'
import type { GenerationStep } from '../describe/versions'
import { invalidData } from './invalid-data'
import { shown } from './value-comparison'
import type { ReplayIssue } from './verify-finding'

/** What a response replay tells of its headers at a level: the status there, and the headers the converters left. */
export interface HeadersAt {
  readonly status: number
  readonly headers: Readonly<Record<string, unknown>>
  readonly converters: readonly string[]
}

/** HEAD's headers sent with a response replay, and the judge of what each level received of them. */
export interface AnsweredHeaders {
  /** A value for each header HEAD documents for the status (lower-case names). */
  readonly sent: Readonly<Record<string, string>>
  /** Whether some level documents other headers than HEAD: a replay is needed even where no converter runs. */
  readonly differ: boolean
  /** The issue of the first level whose documented headers did not arrive, or arrived refused by their schemas. */
  readonly judge: (at: (level: number) => HeadersAt | undefined) => ReplayIssue | undefined
}

/** What judging needs: the route, the slot and status replayed, to which level, and how a header is generated and validated. */
interface HeaderContext {
  readonly head: HeadRoute
  readonly status: number
  readonly level: number
  readonly steps: readonly GenerationStep[]
  readonly versionAt: (level: number) => string
  /** A value of a header's schema, as text (`undefined` where none is generated). */
  readonly valueOf: (schema: TSchema) => string | undefined
  /** Compiles a schema of text (a header's value coerced as Fastify coerces request headers). */
  readonly compile: (schema: TSchema) => Check
}

/** A documented header's schema: an OpenAPI header object's `schema`, or the JSON Schema written in its place (without the header object's own fields). */
function headerSchema (header: SchemaObject): TSchema {
  if (isSchemaObject(header.schema) && header.type === undefined) return header.schema as TSchema
  const { required: _required, deprecated: _deprecated, example: _example, ...schema } = header
  return schema as TSchema
}

/** The headers a level documents for a status, by lower-case name; `undefined` where it documents none. */
function documentedHeaders (slots: SchemaSlots | undefined, status: number): Map<string, TSchema> | undefined {
  const given = slots?.given
  if (!isSchemaObject(given)) return undefined
  const exact = String(status)
  const key = [exact, `${exact[0]}xx`, 'default'].map((wanted) => Object.keys(given).find((key) => key.toLowerCase() === wanted)).find((key) => key !== undefined)
  const response = key === undefined ? undefined : given[key]
  const headers = isSchemaObject(response) && isSchemaObject(response.headers) ? response.headers : undefined
  if (headers === undefined) return undefined
  return new Map(Object.entries(headers).flatMap(([name, header]) => isSchemaObject(header) ? [[name.toLowerCase(), headerSchema(header)] as const] : []))
}

/**
 * The headers of HEAD's response of status `status` on `head`'s route, to send with each replay down to `level`, and
 * their judge; `undefined` where no level down to it documents a header for the status.
 * @example
 * ```ts
 * const headers = answeredHeaders({ head, status: 200, level: 2, steps, versionAt, valueOf, compile })
 * headers?.sent // { traceparent: 'zq000001' }
 * ```
 */
export function answeredHeaders (context: HeaderContext): AnsweredHeaders | undefined {
  const { head, status, level } = context
  const documented = head.forms.responses.slice(0, level + 1).map((slots) => documentedHeaders(slots, status))
  if (documented.every((headers) => headers === undefined)) return undefined
  const sent: Record<string, string> = {}
  for (const [name, schema] of documented[0] ?? []) {
    const value = context.valueOf(schema)
    if (value !== undefined) sent[name] = value
  }
  const headText = JSON.stringify([...documented[0] ?? []])
  return {
    sent,
    differ: documented.some((headers) => JSON.stringify([...headers ?? []]) !== headText),
    judge: (at) => {
      for (let reached = 1; reached <= level; reached++) {
        const there = at(reached)
        if (there === undefined) return undefined
        const issue = levelIssue(context, { sent, reached, there })
        if (issue !== undefined) return issue
      }
      return undefined
    }
  }
}

/** The issue of the first header level `reached` documents for its status that did not arrive there, or arrived refused by its schema. */
function levelIssue (context: HeaderContext, { sent, reached, there }: { sent: Readonly<Record<string, string>>, reached: number, there: HeadersAt }): ReplayIssue | undefined {
  const documented = documentedHeaders(context.head.forms.responses[reached], there.status)
  const arrived = new Map(Object.entries(there.headers).map(([name, value]) => [name.toLowerCase(), value]))
  const version = context.versionAt(reached)
  const changes = context.steps[reached - 1].changes.map((change) => change.name)
  const where = { step: reached - 1, reached, converters: there.converters, changes, part: `response ${there.status} header`, pointer: '' }
  const by = there.converters.length === 0 ? `Add a response converter to ${changes.join(', ')} that writes` : `Make ${there.converters.join(', ')} write`
  for (const [name, schema] of documented ?? []) {
    const value = arrived.get(name)
    if (value === undefined) {
      const heads = Object.keys(sent)
      const from = Object.hasOwn(sent, name) ? 'HEAD\'s response sends it, and the converters remove it' : `HEAD's response sends ${heads.length === 0 ? 'no header' : heads.join(', ')} in its place`
      return {
        ...where,
        part: `${where.part} ${name}`,
        kind: 'lost',
        message: `the header ${name}, which ${version} documents, does not arrive: ${from}`,
        fix: `${by} response.headers['${name}'] (from what HEAD sends: ${heads.join(', ') || 'nothing'}), or leave ${name} out of the responses ${version} documents.`
      }
    }
    let check: Check
    try {
      check = context.compile({ type: 'object', properties: { [name]: schema } } as unknown as TSchema)
    } catch {
      continue // A header schema the app's Ajv cannot compile: documentation only, not judged.
    }
    const text = typeof value === 'object' && value !== null ? value : String(value)
    if (check({ [name]: text })) continue
    const { message } = invalidData(check.errors ?? [], { [name]: text }, false)
    return { ...where, part: `${where.part} ${name}`, kind: 'invalid', value: text, message: `the header ${name} arrives as ${shown(text)}, which the schema ${version} documents refuses: ${message}`, fix: `${by} response.headers['${name}'] as ${version} documents it.` }
  }
  return undefined
}
