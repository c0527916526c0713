/**
 * The fields an old version's clients send that HEAD never gets, for `verify` (decisions 0225, 0227): a field of a
 * version's request body, query string or headers that HEAD's form of the schema has no counterpart for (brought back
 * by `formerField(...).existedAs`, not a HEAD field renamed by `had({ name })`) is dropped when, in every example
 * holding it, what it holds reaches nowhere in HEAD's request and the converters of the step that declared it did not
 * take it out: a `lost` finding. A free string is followed by its sentinel (found in any part of HEAD's request); a
 * number, flag or enum member, or a string whose sentinel another part holds too, by a replay with it changed
 * (./former-values.ts). The same watch of responses (decision 0224) was withdrawn: an optional field removed with no
 * converter is the documented way to remove a field, and `verify` cannot tell it from a forgotten converter.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { RequestPart } from '../routes/version-plan'
import type { SchemaGeneration } from '../schemas/generation'
import { asNode, declaredChildren, fieldsAt, pointerOfPath, readingNode, valueAt, type PathKey } from './data-flow'
import type { GeneratedExample } from './example-generation'
import { changesHead, declaredRequest, otherValue, type FlippedExample, type HeadRequest } from './former-values'
import { arrives, deliveredStrings } from './sentinel-arrival'
import { foldedText } from './renamed-values'
import type { Replay, ReplayContext, ReplayIssue, Trail } from './verify-replay'

/** What the watch needs of a run: the replay context (with its count of replays), the generation, its steps. */
interface FormerFieldsEnvironment extends ReplayContext {
  readonly generation: SchemaGeneration
  readonly steps: readonly GenerationStep[]
  replayed: number
}

/** The route version watched: its level, the HEAD schema of each request part, and the form of a part at a level. */
interface WatchedRoute {
  readonly level: number
  readonly heads: (part: RequestPart) => TSchema | undefined
  readonly formAt: (part: RequestPart, level: number) => TSchema
}

/** The fields of a seed at the watched level, and those HEAD has no counterpart for, by key, with the level each appears at. */
interface SeedFields {
  readonly fields: ReturnType<typeof fieldsAt>
  readonly former: ReadonlyMap<string, number>
}

/** A request example that reached HEAD: its parts as the client sent them, the examples picked (their sentinels), its replay. */
interface SentRequest {
  readonly sent: Partial<Record<RequestPart, unknown>>
  readonly picked: ReadonlyMap<RequestPart, GeneratedExample>
  readonly replay: Replay
}

const NONE: SeedFields = { fields: [], former: new Map() }
/** The parts a former field is watched in. */
const WATCHED: readonly RequestPart[] = ['body', 'querystring', 'headers']
/** The parts HEAD's request is read in. */
const READ: readonly RequestPart[] = ['params', 'body', 'querystring', 'headers']
/** A query string or headers HEAD declares no schema for: a handler may still read any of them (`request.headers[name]`). */
const UNDECLARED = { type: 'object', additionalProperties: {} }

/** A field of a seed with no HEAD counterpart, at one place of a part: carried (or taken out) in some example or not. */
interface Place {
  readonly part: RequestPart
  readonly pointer: string
  readonly key: string
  readonly head: TSchema
  readonly id: number
  /** The newest level whose form of the seed has the field: the step before it declared it. */
  readonly appears: number
  written: boolean
  /** True when some example judged it by changing its value rather than by its sentinel. */
  changed: boolean
  /** The converters that ran, in some example, at the step that declared the field. */
  readonly ran: Set<string>
}

/** A step of a path in a part: a key, or a seed's field (its key at another level follows its renames). */
type Segment = PathKey | { readonly head: TSchema, readonly id: number, readonly key: PathKey }

/** A former field held by an example: its place, the value, its path in the part (and as fields), its schema at the level. */
interface Held {
  readonly at: Omit<Place, 'written' | 'changed' | 'ran'>
  readonly value: unknown
  readonly path: readonly PathKey[]
  readonly trace: readonly Segment[]
  readonly type: unknown
}

/**
 * The former fields of one route version's request parts, by part and place (JSON pointer, `*` for items): fed each
 * example that reached HEAD (`sent`), then asked for the places no example carried (`issues`).
 * @example
 * ```ts
 * const watch = new FormerFields(env, { level: 2, heads, formAt, compile })
 * for (const example of examples) await watch.sent(example, trail)
 * watch.issues() // [{ kind: 'lost', part: 'querystring', pointer: '/status', ... }] when no converter maps it
 * ```
 */
export class FormerFields {
  private readonly places = new Map<string, Place>()
  /** By seed: its fields at the level, and those HEAD has no counterpart for, by key, each with the level it appears at. */
  private readonly seeds = new Map<TSchema, SeedFields>()

  constructor (private readonly env: FormerFieldsEnvironment, private readonly route: WatchedRoute) {}

  /**
   * Notes the former fields of a request example that reached HEAD: one holding a sentinel no other part holds is
   * carried when the sentinel arrives in HEAD's request (under the fields its schemas declare); another holding a
   * value it can change, when HEAD's request changes with it; either, when the converters of the step that declared
   * it took it out (its strings, or the field, in the part before that step and not after).
   */
  async sent (example: SentRequest, trail: Trail): Promise<void> {
    const held = WATCHED.flatMap((part) => this.heldIn(part, example.sent[part]))
    if (held.length === 0) return
    const sentinels = new Map<string, number>()
    for (const picked of example.picked.values()) for (const text of picked.sentinels.keys()) sentinels.set(text, (sentinels.get(text) ?? 0) + 1)
    const headRequest: HeadRequest = READ.flatMap((part) => {
      const schema = this.route.heads(part) !== undefined ? this.route.formAt(part, 0) : part === 'querystring' || part === 'headers' ? UNDECLARED : undefined
      return schema === undefined ? [] : [[part, schema, partOf(part, { trail, sent: example.replay.data }, 0)] as const]
    })
    const delivered = headRequest.flatMap(([, schema, data]) => deliveredStrings(schema, data, this.env.resolveRef))
    let flipped: FlippedExample | undefined
    for (const { at, value, path, trace, type } of held) {
      const before = partOf(at.part, { trail, sent: example.sent }, at.appears === this.route.level ? Infinity : at.appears)
      const after = partOf(at.part, { trail, sent: example.sent }, at.appears - 1)
      const strings = stringsIn(value).filter((text) => sentinels.get(text) === 1)
      if (strings.length > 0) {
        const out = within(before, strings) && !within(after, strings)
        this.note(at, strings.some((text) => arrives(text, delivered)) || out, trail)
        continue
      }
      const other = this.places.get(placeKey(at))?.written === true ? undefined : otherValue(this.env.generation.formAt(type as TSchema, this.route.level), value, this.env.resolveRef)
      if (other === undefined) continue
      // Taken out: the field is gone after the step, and its value with it (moved to a field HEAD never reads is no drop).
      // Read under its names at those levels: a version before a rename of the field sends it under another.
      // Where another change of the step gave its name to another field, only its value tells it gone.
      const [then, next] = [at.appears, at.appears - 1].map((level) => this.pathAt(trace, level, at))
      const named = fieldsAt(this.env.generation, at.head, at.appears).find(({ field }) => field.id === at.id)?.key ?? at.key
      const taken = fieldsAt(this.env.generation, at.head, at.appears - 1).some(({ key, field }) => key === named && field.id !== at.id)
      if (valueAt(before, then) !== undefined && (taken || valueAt(after, next) === undefined) && !holdsScalar(after, value)) {
        this.note(at, true, trail)
        continue
      }
      const read = (reached: Trail): string[] => declaredRequest(headRequest.map(([part, schema]) => [part, schema, partOf(part, { trail: reached, sent: example.replay.data }, 0)]), this.env.resolveRef)
      flipped ??= { replay: example.replay, sent: example.sent, head: declaredRequest(headRequest, this.env.resolveRef), read }
      const valid = this.env.compile(this.route.formAt(at.part, this.route.level))
      const changed = await changesHead(this.env, flipped, { part: at.part, path, other, valid })
      if (changed !== undefined) this.note(at, changed, trail, true)
    }
  }

  /** The former fields `data` (data of part `part` of the version at the level) holds, walked through HEAD's schema as the level has it. */
  private heldIn (part: RequestPart, data: unknown): Held[] {
    const headSchema = this.route.heads(part)
    if (headSchema === undefined) return []
    const { generation, resolveRef } = this.env
    const found: Held[] = []
    const stack: Array<[unknown, unknown, PathKey[], PathKey[], Segment[]]> = [[headSchema, data, [], [], []]]
    while (stack.length > 0) {
      const [schema, value, path, shown, trace] = stack.pop() as [unknown, unknown, PathKey[], PathKey[], Segment[]]
      const bare = asNode(schema, resolveRef)
      if (bare === undefined || schema === true || typeof value !== 'object' || value === null) continue
      const node = readingNode(bare, value, resolveRef, { generation, level: this.route.level })
      const seed = Array.isArray(value) ? undefined : generation.seedOf(node as TSchema)
      const { fields, former } = seed === undefined ? NONE : this.formerOf(seed.head)
      if (seed === undefined || fields.length === 0) {
        // The entries of a map are one place, as a list's items are: a number is written `*` in the pointer.
        const declared = (node.properties ?? {}) as object
        for (const [key, sub] of declaredChildren(node, value)) {
          stack.push([sub, (value as Record<PathKey, unknown>)[key], [...path, key], [...shown, typeof key === 'number' || Object.hasOwn(declared, key) ? key : 0], [...trace, key]])
        }
        continue
      }
      for (const { key: named, field } of fields) {
        // A header is sent (and read) by its name in lower case, whatever case the schema declares it in.
        const key = part === 'headers' ? named.toLowerCase() : named
        if (!Object.hasOwn(value, key)) continue
        const appears = former.get(named)
        const inner = (value as Record<PathKey, unknown>)[key]
        const traced = [...trace, { head: seed.head, id: field.id, key }]
        if (appears !== undefined) {
          found.push({ at: { part, pointer: pointerOfPath([...shown, key]), key: named, head: seed.head, id: field.id, appears }, value: inner, path: [...path, key], trace: traced, type: field.type })
        }
        stack.push([field.type, inner, [...path, key], [...shown, key], traced])
      }
    }
    return found
  }

  /** A `lost` issue for each place no example carried, at the step whose instruction declared the field. */
  issues (): ReplayIssue[] {
    return [...this.places.values()].filter((place) => !place.written).map(({ appears, ...place }) => {
      const step = this.env.steps[appears - 1]
      const naming = step.changes.filter((change) => change.instructions.some((instruction) => instruction.kind === 'field.existedAs' &&
        instruction.field === place.key && this.env.generation.seedOf(instruction.schema)?.head === place.head))
      const changes = (naming.length === 0 ? step.changes : naming).map((change) => change.name)
      const reaches = place.changed
        ? 'HEAD\'s request is the same whatever the version\'s clients send in it'
        : 'what the version\'s clients send in it arrives nowhere in HEAD\'s request'
      return {
        kind: 'lost',
        part: place.part,
        pointer: place.pointer,
        message: `declared by existedAs in this version, with no counterpart in HEAD: ${reaches}, in every example holding it, and no converter took it out`,
        fix: `Carry ${place.pointer} to HEAD in a request converter of ${changes.join(', ')} (or act on it there and delete it from the ` +
          `${place.part === 'querystring' ? 'query string' : place.part}); the version's clients send it.`,
        converters: [...place.ran],
        changes,
        step: appears - 1,
        reached: appears - 1
      }
    })
  }

  /**
   * The fields of `head` at the level, and those HEAD has no counterpart for, by key, each with the newest level (1 to
   * the watched one) whose form of the seed has it: the step before that level declared it (computed once per seed).
   */
  private formerOf (head: TSchema): SeedFields {
    let found = this.seeds.get(head)
    if (found === undefined) {
      const ids = (level: number): Set<number> => new Set(fieldsAt(this.env.generation, head, level).map(({ field }) => field.id))
      const inHead = ids(0)
      const fields = fieldsAt(this.env.generation, head, this.route.level)
      const added = fields.filter(({ field }) => !inHead.has(field.id))
      const levels = added.length === 0 ? [] : Array.from({ length: this.route.level - 1 }, (_, index) => ids(index + 1))
      const appears = (id: number): number => {
        const index = levels.findIndex((held) => held.has(id))
        return index === -1 ? this.route.level : index + 1
      }
      found = { fields, former: new Map(added.map(({ key, field }) => [key, appears(field.id)])) }
      this.seeds.set(head, found)
    }
    return found
  }

  /** The path of `trace` at `level`: each seed's field under its name there (where the level lacks it, at the level the field appears). */
  private pathAt (trace: readonly Segment[], level: number, at: Held['at']): PathKey[] {
    const keyAt = ({ head, id }: { head: TSchema, id: number }, there: number): string | undefined => {
      const key = fieldsAt(this.env.generation, head, there).find(({ field }) => field.id === id)?.key
      return key === undefined || at.part !== 'headers' ? key : key.toLowerCase()
    }
    return trace.map((segment) => typeof segment !== 'object' ? segment : keyAt(segment, level) ?? keyAt(segment, at.appears) ?? segment.key)
  }

  private note (at: Held['at'], held: boolean, trail: Trail, changed = false): void {
    const key = placeKey(at)
    let place = this.places.get(key)
    if (place === undefined) this.places.set(key, place = { ...at, written: false, changed, ran: new Set() })
    if (held) place.written = true
    if (changed) place.changed = true
    for (const converter of trail.get(at.appears - 1)?.converters ?? []) place.ran.add(converter)
  }
}

/** Every string of a JSON value. */
function stringsIn (value: unknown): string[] {
  const found: string[] = []
  const stack = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next === 'string') found.push(next)
    else if (typeof next === 'object' && next !== null) stack.push(...Object.values(next))
  }
  return found
}

/** True when `data` holds `value` (a scalar) anywhere: a string as `within` finds it, another value equal. */
function holdsScalar (data: unknown, value: unknown): boolean {
  if (typeof value === 'string') return within(data, [value])
  const stack = [data]
  while (stack.length > 0) {
    const next = stack.pop()
    if (next === value) return true
    if (typeof next === 'object' && next !== null) stack.push(...Object.values(next))
  }
  return false
}

/** The key of a place: its part, pointer and field. */
function placeKey (at: Held['at']): string {
  return `${at.part}\n${at.pointer}\n${at.id}`
}

/** A part of a request at a level a replay reached (0 is HEAD), read from its trail; `Infinity`: as the client sent it (its path parameters at every level). */
function partOf (part: RequestPart, at: { trail: Trail, sent: Partial<Record<RequestPart, unknown>> }, level: number): unknown {
  if (level === Infinity || part === 'params') return at.sent[part]
  return part === 'body' ? at.trail.get(level)?.body : at.trail.get(level)?.text?.[part as 'querystring' | 'headers']
}

/** True when one of `strings` is within a string of `data` (case and spaces aside). */
function within (data: unknown, strings: readonly string[]): boolean {
  const held = stringsIn(data).map(foldedText)
  return strings.some((text) => arrives(text, held))
}
