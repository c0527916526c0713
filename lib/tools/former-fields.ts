/**
 * The fields an old version's clients send that HEAD never gets, for `verify` (decision 0225): a field of a version's
 * request body that HEAD's form of the schema has no counterpart for (brought back by `formerField(...).existedAs`,
 * not a HEAD field renamed by `had({ name })`), holding a sentinel in some example, that in every one arrives nowhere
 * in the HEAD body and is not taken out by the converters of the step that declared it, is dropped: a `lost` finding.
 * The same watch of responses (decision 0224) was withdrawn: an optional field removed with no converter is the
 * documented way to remove a field, and `verify` cannot tell it from a forgotten converter.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { SchemaGeneration } from '../schemas/generation'
import { asNode, declaredChildren, fieldsAt, pointerOfPath, readingNode, type PathKey, type RefResolver } from './data-flow'
import { arrives, deliveredStrings } from './sentinel-arrival'
import type { ReplayIssue, Trail } from './verify-replay'

/** What the watch needs of a run: the generation, its steps, the application's `$ref`s. */
interface FormerFieldsEnvironment {
  readonly generation: SchemaGeneration
  readonly steps: readonly GenerationStep[]
  readonly resolveRef: RefResolver
}

/** The fields of a seed at the watched level, and those HEAD has no counterpart for, by key, with the level each appears at. */
interface SeedFields {
  readonly fields: ReturnType<typeof fieldsAt>
  readonly former: ReadonlyMap<string, number>
}

/**
 * A request example for a request's watch: the body the version's client sent, the sentinels the example holds, and
 * the HEAD body the converters made of it, with HEAD's form (the trail holds the levels between).
 */
interface SentRequest {
  readonly body: unknown
  readonly sentinels: ReadonlyMap<string, string>
  readonly head: { readonly schema: unknown, readonly body: unknown }
}

const NONE: SeedFields = { fields: [], former: new Map() }

/** A field of a seed with no HEAD counterpart, at one place of the body: carried (or taken out) in some example or not. */
interface Place {
  readonly pointer: string
  readonly key: string
  readonly head: TSchema
  readonly id: number
  /** The newest level whose form of the seed has the field: the step before it declared it. */
  readonly appears: number
  written: boolean
  /** The converters that ran, in some example, at the step that declared the field. */
  readonly ran: Set<string>
}

/**
 * The former fields of one route's request bodies of a version at a level, by place (JSON pointer, `*` for items): fed
 * each example that reached HEAD (`sent`), then asked for the places no example carried (`issues`).
 * @example
 * ```ts
 * const watch = new FormerFields(env, InvoiceCreate, 2)
 * for (const example of examples) watch.sent(example, trail)
 * watch.issues('body') // [{ kind: 'lost', pointer: '/coupon', ... }] when no converter carried it to HEAD
 * ```
 */
export class FormerFields {
  private readonly places = new Map<string, Place>()
  /** By seed: its fields at the level, and those HEAD has no counterpart for, by key, each with the level it appears at. */
  private readonly seeds = new Map<TSchema, SeedFields>()

  constructor (private readonly env: FormerFieldsEnvironment, private readonly headSchema: TSchema, private readonly level: number) {}

  /**
   * Notes the former fields of a request example that reached HEAD: each holding a sentinel is carried when one of
   * its sentinels arrives in the HEAD body (under HEAD's fields), or the converters of the step that declared it took
   * it out (its sentinels in the body before that step, in none of its strings after); one holding none is not judged.
   */
  sent (sent: SentRequest, trail: Trail): void {
    let delivered: string[] | undefined
    const within = (body: unknown, strings: readonly string[]): boolean => strings.some((text) => arrives(text, stringsIn(body).map((each) => each.toLowerCase())))
    this.saw(sent.body, trail, (value, appears) => {
      const strings = stringsIn(value).filter((text) => sent.sentinels.has(text))
      if (strings.length === 0) return undefined
      delivered ??= deliveredStrings(sent.head.schema, sent.head.body, this.env.resolveRef)
      if (strings.some((text) => arrives(text, delivered as string[]))) return true
      return within(appears === this.level ? sent.body : trail.get(appears)?.body, strings) && !within(trail.get(appears - 1)?.body, strings)
    })
  }

  /**
   * Notes the former fields of `body` (data of the version at the level), walked through the HEAD schema as the level
   * has it: each held one carried as `carried` says (`undefined`: not judged).
   */
  private saw (body: unknown, trail: Trail, carried: (value: unknown, appears: number) => boolean | undefined): void {
    const { generation, resolveRef } = this.env
    const stack: Array<[unknown, unknown, PathKey[]]> = [[this.headSchema, body, []]]
    while (stack.length > 0) {
      const [schema, value, path] = stack.pop() as [unknown, unknown, PathKey[]]
      const bare = asNode(schema, resolveRef)
      if (bare === undefined || schema === true || typeof value !== 'object' || value === null) continue
      const node = readingNode(bare, value, resolveRef)
      const seed = Array.isArray(value) ? undefined : generation.seedOf(node as TSchema)
      const { fields, former } = seed === undefined ? NONE : this.formerOf(seed.head)
      if (seed === undefined || fields.length === 0) {
        // The entries of a map are one place, as a list's items are: a number is written `*` in the pointer.
        const declared = (node.properties ?? {}) as object
        for (const [key, sub] of declaredChildren(node, value)) {
          stack.push([sub, (value as Record<PathKey, unknown>)[key], [...path, typeof key === 'number' || Object.hasOwn(declared, key) ? key : 0]])
        }
        continue
      }
      for (const { key, field } of fields) {
        const held = Object.hasOwn(value, key)
        const appears = former.get(key)
        const written = appears === undefined || !held ? undefined : carried((value as Record<PathKey, unknown>)[key], appears)
        if (appears !== undefined && written !== undefined) this.note({ pointer: pointerOfPath([...path, key]), key, head: seed.head, id: field.id, appears }, written === true, trail)
        if (held) stack.push([field.type, (value as Record<PathKey, unknown>)[key], [...path, key]])
      }
    }
  }

  /** A `lost` issue of part `part` for each place no example carried, at the step whose instruction declared the field. */
  issues (part: string): ReplayIssue[] {
    return [...this.places.values()].filter((place) => !place.written).map(({ appears, ...place }) => {
      const step = this.env.steps[appears - 1]
      const naming = step.changes.filter((change) => change.instructions.some((instruction) => instruction.kind === 'field.existedAs' &&
        instruction.field === place.key && this.env.generation.seedOf(instruction.schema)?.head === place.head))
      const changes = (naming.length === 0 ? step.changes : naming).map((change) => change.name)
      return {
        kind: 'lost',
        part,
        pointer: place.pointer,
        message: 'declared by existedAs in this version, with no counterpart in HEAD: what the version\'s clients send in it arrives nowhere in ' +
          'HEAD\'s body, in every example holding it, and no converter took it out',
        fix: `Carry ${place.pointer} to HEAD in a request converter of ${changes.join(', ')} (or act on it there and delete it from the body); the version's clients send it.`,
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
      const fields = fieldsAt(this.env.generation, head, this.level)
      const added = fields.filter(({ field }) => !inHead.has(field.id))
      const levels = added.length === 0 ? [] : Array.from({ length: this.level - 1 }, (_, index) => ids(index + 1))
      const appears = (id: number): number => {
        const index = levels.findIndex((held) => held.has(id))
        return index === -1 ? this.level : index + 1
      }
      found = { fields, former: new Map(added.map(({ key, field }) => [key, appears(field.id)])) }
      this.seeds.set(head, found)
    }
    return found
  }

  private note (at: Omit<Place, 'written' | 'ran'>, held: boolean, trail: Trail): void {
    const key = `${at.pointer}\n${at.id}`
    let place = this.places.get(key)
    if (place === undefined) this.places.set(key, place = { ...at, written: false, ran: new Set() })
    if (held) place.written = true
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
