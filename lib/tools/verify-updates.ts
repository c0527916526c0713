/**
 * What `verify` reports about partial updates (a `PATCH` that is not a full replace): a top-level HEAD body field the
 * request converters of a version set in every update from it that leaves out what its clients send the field as
 * (every update, for a field the version lacks) overwrites the stored value (decisions 0175, 0295), as does a field
 * the version lacks inside an object or list item, set in every one the updates send (decision 0301).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { pointerKey, pointerSegment, type SchemaObject } from '../core/json-schema'
import { childSchemaInfo } from '../describe/extend-schema'
import { visibleFields } from '../schemas/object-fields'
import { headPart, type VersionBehaviour } from '../routes/version-plan'
import type { HeadRoute } from '../routes/versioner-state'
import type { SchemaGeneration } from '../schemas/generation'
import type { Trail } from './verify-replay'
import { copyJson } from '../serve/step-runner'

/** A field the version lacks that its request converters set on every partial update from it (a default). */
const OVERWRITES = 'the request converters of this version set this field, which its clients cannot send, in every partial update from it: ' +
  'each one overwrites the stored value. Give the default where the resource is created (the create route\'s converter or handler, or a default ' +
  'in HEAD\'s schema), or set it only where the stored value is absent (in the handler: the converter cannot see it); declare it derivedFrom(...) ' +
  'if the converters set it from what the clients send'

/** A field the version lacks whose default in HEAD's schema HEAD's validation fills in every partial update from the version. */
const DEFAULTED = 'HEAD\'s schema of this partial update gives this field, which the clients of this version cannot send, a default, which Fastify\'s ' +
  'validation fills, after the converters, in every update from it: each one overwrites the stored value. Leave the default out of the schema of ' +
  'the update\'s body (Type.Partial keeps it; give it where the resource is created), as HEAD\'s own clients lose the stored value the same way'

/**
 * A field inside an object (or each item of a list) that the version lacks, which its request converters or HEAD's
 * defaults set in every partial update from it sending that object (decision 0301).
 */
const NESTED = 'the clients of this version cannot send this field, but in every partial update from it that sends the object holding it, ' +
  'the request converters (or a default of HEAD\'s schema) set it: each one overwrites the stored value (a converter cannot see it). Set it ' +
  'only where the stored value is absent, in the handler (fieldsTheVersionLacks(request) lists it: keep the stored value there, whether the ' +
  'handler merges the object or replaces it); if HEAD\'s schema of the update requires it, make it optional there (Type.Partial of the ' +
  'nested object too, as an update leaves out what it does not change) and leave its default out'

/** How the clients of a version send a HEAD body field: as a field of its own (`key`, its name there), or through `sources` (derivedFrom). */
interface SentAs { readonly key: string | undefined, readonly sources: readonly string[] }

/**
 * How the clients of the version at `level` send each top-level field of the HEAD body: the field itself under the
 * version's name (renamed or retyped), the sources of a field declared `derivedFrom`, neither for a field the version
 * lacks. `undefined` for a body that is not an object whose fields are versioned (a seed, or made by `extendSchema`),
 * or that is HEAD's own at the level. For `verify`'s partial-update check (decision 0295).
 * @example
 * sentAs(CustomerPatch, generation.levelOf('2000-01-01'), generation)?.get('/status') // { key: 'active', sources: [] }
 */
function sentAs (head: TSchema | undefined, level: number, generation: SchemaGeneration): ReadonlyMap<string, SentAs> | undefined {
  const ref = (head as SchemaObject | undefined)?.$ref
  const node = typeof ref === 'string' ? generation.resolveRef(ref) : head
  if (node === undefined || generation.formAt(node, level) === node || (generation.seedOf(node) === undefined && childSchemaInfo(node) === undefined)) return undefined
  const [headState, state] = [generation.stateAt(node, 0), generation.stateAt(node, level)]
  if (headState.kind !== 'object' || state.kind !== 'object') return undefined
  const there = new Map(visibleFields(state, (schema) => generation.stateAt(schema, level)).map(({ key, field }) => [field.id, key]))
  return new Map(visibleFields(headState, (schema) => generation.stateAt(schema, 0)).map(({ key, field }) => {
    const sources = [...generation.derivations.get(field.id)?.keys() ?? []].flatMap((source) => there.get(source) ?? [])
    return [`/${pointerSegment(key)}`, { key: there.get(field.id), sources }]
  }))
}

/**
 * A field the version has (or sets from the fields declared its sources) that its request converters set in every
 * partial update from it leaving out `names`, the fields its clients send it as.
 */
function setUnsent (names: readonly string[]): string {
  const quoted = names.map((name) => `'${name}'`)
  return `the request converters of this version set this field in every partial update from it that leaves out ${quoted.join(' and ')}: each one ` +
    `overwrites the stored value with one the client did not send. Set it only when the body holds ${quoted.join(' or ')} ` +
    `(if (Object.hasOwn(request.body, ${quoted[0]})) ...), as a partial update leaves out what it does not change`
}

/** The values `body` holds at `pointer`'s segments (`*`: at every item of a list or value of a map). */
function valuesAt (body: unknown, segments: readonly string[]): unknown[] {
  if (segments.length === 0) return body === undefined ? [] : [body]
  if (typeof body !== 'object' || body === null) return []
  const [segment, ...rest] = segments
  const children = segment === '*' ? Object.values(body) : Object.hasOwn(body, segment) ? [(body as Record<string, unknown>)[segment]] : []
  return children.flatMap((child) => valuesAt(child, rest))
}

/** The values `body` holds at `pointer` (`*`: at every item of a list or value of a map). */
export function valuesAtPointer (body: unknown, pointer: string): unknown[] {
  return valuesAt(body, pointer.split('/').slice(1).map(pointerKey))
}

/**
 * True for a route whose `PATCH` is a partial update: only a `PATCH` says so (`fullReplace: false` is also how a `PUT`
 * that creates says it does not replace; decision 0182).
 */
export function isPartialUpdate (head: HeadRoute): boolean {
  return head.methods.includes('PATCH') && !head.fullReplace.methods.has('PATCH')
}

/** The step whose request converters set a field, and their names. */
export interface SetBy { readonly step: number, readonly converters: readonly string[] }

/**
 * A watch over a version's request examples: `saw` each one migrated up to HEAD (`body`), as sent (`sent`) and level
 * by level (`trail`), then `done`.
 */
export interface Watch {
  saw: (body: unknown, sent: unknown, trail?: Trail) => void
  done: () => void
}

/**
 * Where a partial update is watched: its route, the version's behaviour, the body slot, and HEAD's validation of the
 * body as served (`served`: filling the defaults of HEAD's schema where the validator in force does, in place).
 */
interface Updated { readonly head: HeadRoute, readonly behaviour: VersionBehaviour, readonly slot: string, readonly served: (data: { body?: unknown }) => void }

/** Notes a finding at `pointer` with `message`, set by the converters of `by` (where known). */
type Note = (pointer: string, message: string, by: SetBy | undefined) => void

/**
 * A watch over a partial update's request examples: each top-level HEAD field that the converters set in every
 * example leaving out the fields its clients send it as (all examples, for a field the version lacks: `lacked`),
 * though no field the client sent is in all of those but those the version's body requires (the converters set it
 * whatever the client sends), is noted.
 */
export function updateWatch (generation: SchemaGeneration, at: Updated, lacked: readonly string[], note: Note): Watch | undefined {
  const headBody = headPart(at.head, 'body', at.slot)
  const form = generation.formAt(headBody as TSchema, at.behaviour.level) as SchemaObject
  const required = new Set(Array.isArray(form.required) ? form.required as string[] : [])
  const lacking: SentAs = { key: undefined, sources: [] }
  const sent = [...sentAs(headBody, at.behaviour.level, generation) ?? []].filter(([, as]) => as.key !== undefined || as.sources.length > 0)
  // By top-level field: the fields clients send it as, whether the converters set it in every example leaving those
  // out, the fields the client sent in all of them, and the step that set it in the first.
  const fields = new Map([...lacked.filter((pointer) => pointer.lastIndexOf('/') === 0).map((pointer) => [pointer, lacking] as const), ...sent]
    .map(([pointer, as]) => [pointer, { as: as.key === undefined ? as.sources : [as.key], always: true, defaulted: false, sent: undefined as Set<string> | undefined, by: undefined as SetBy | undefined }]))
  const nested = nestedWatch(lacked.filter((pointer) => pointer.lastIndexOf('/') > 0))
  if (fields.size === 0 && nested === undefined) return undefined
  const names = new Map<number, ReadonlyMap<string, SentAs> | undefined>()
  // The step whose converters first set the field at `pointer` (its name at each level followed), going up from the version.
  const setBy = (pointer: string, trail: Trail): SetBy | undefined => {
    for (let level = at.behaviour.level - 1; level >= 0; level--) {
      if (!names.has(level)) names.set(level, level === 0 ? undefined : sentAs(headBody, level, generation))
      const key = names.get(level) === undefined ? pointerKey(pointer.slice(1)) : names.get(level)?.get(pointer)?.key
      const reached = trail.get(level)
      if (key !== undefined && reached !== undefined && valuesAt(reached.body, [key]).length > 0) return { step: level, converters: reached.converters }
    }
    return undefined
  }
  return {
    saw: (converted, client, trail) => {
      const keys = typeof client === 'object' && client !== null ? Object.keys(client) : []
      const body = { body: copyJson(converted) }
      at.served(body)
      nested?.saw(converted, body.body)
      for (const [pointer, field] of fields) {
        if (field.as.some((key) => keys.includes(key))) continue
        // A default HEAD's validation fills counts for a field the version lacks only: HEAD's own clients send the others.
        const set = valuesAtPointer(converted, pointer).length > 0
        if (!set && (field.as.length > 0 || valuesAtPointer(body.body, pointer).length === 0)) field.always = false
        else if (!set) field.defaulted = true
        else if (field.as.length > 0 && trail !== undefined) field.by ??= setBy(pointer, trail)
        field.sent = new Set(keys.filter((key) => field.sent?.has(key) ?? true))
      }
    },
    done: () => {
      for (const pointer of nested?.found() ?? []) note(pointer, NESTED, undefined)
      for (const [pointer, field] of fields) {
        if (!field.always || field.sent === undefined || ![...field.sent].every((key) => required.has(key))) continue
        note(pointer, field.as.length > 0 ? setUnsent(field.as) : field.defaulted ? DEFAULTED : OVERWRITES, field.by)
      }
    }
  }
}

/**
 * A watch over the fields a version lacks inside objects and list items (`pointers`, deeper than the top): one that
 * every object holding it in the converted examples holds, set by the converters or by HEAD's validation, is `found`
 * (decision 0301). An object the client does not send is not looked at.
 */
function nestedWatch (pointers: readonly string[]): { saw: (converted: unknown, served: unknown) => void, found: () => string[] } | undefined {
  if (pointers.length === 0) return undefined
  const fields = pointers.map((pointer) => {
    const cut = pointer.lastIndexOf('/')
    return { pointer, parent: pointer.slice(0, cut), key: pointerKey(pointer.slice(cut + 1)), always: true, held: false }
  })
  const holders = (body: unknown, parent: string): object[] =>
    valuesAtPointer(body, parent).filter((value): value is object => typeof value === 'object' && value !== null && !Array.isArray(value))
  return {
    saw: (converted, served) => {
      for (const field of fields) {
        // HEAD's validation fills defaults in place: the served body's objects stand where the converted one's do.
        const [before, after] = [holders(converted, field.parent), holders(served, field.parent)]
        field.held ||= before.length > 0
        if (before.some((object, index) => !Object.hasOwn(object, field.key) && !Object.hasOwn(Object(after[index]), field.key))) field.always = false
      }
    },
    found: () => fields.filter(({ always, held }) => always && held).map(({ pointer }) => pointer)
  }
}
