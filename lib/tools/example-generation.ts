/**
 * The examples `verify` replays: first one example per boundary where converters lose data (./boundary-values.ts:
 * strings with spaces and non-ASCII letters, empty ones, long ones, padded with spaces or of spaces only, e-mails in
 * upper case, lines with tabs and decomposed letters (only where some string takes them); numbers with a fraction, negative, zero, large; empty lists and records; `null` where allowed; every
 * optional field present), then the random ones, generated from a version's JSON Schema with fast-check
 * (deterministic by seed), optional fields present and absent, union members and array lengths varied, then every
 * enum member sampling missed, then up to {@link MAX_LITERAL_EXAMPLES} examples of the strings the converters compare
 * against (./converter-literals.ts), each in every string field whose schema accepts it (a list's first item only),
 * optional fields present and lists not empty. Every free string but an empty or blank one holds a unique sentinel
 * (`zq0001a2`, a UUID, an e-mail, a URI… as the format asks: ./boundary-strings.ts), so that `verify` can tell where
 * each value arrives after the converters. fast-check is loaded when `verify` runs only.
 * @module
 */
import type * as FastCheck from 'fast-check'
import { isSchemaObject } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { toolLibrary } from './tool-library'
import { typeOf, type JsonSchema } from '../values/examples'
import { patternOf, type FormatPatterns } from '../values/string-examples'
import { subschemasOf } from '../core/subschemas'
import { asNode, type RefResolver } from './data-flow'
import { allowsNull, boundaryLength, boundaryNumber, BOUNDARIES, distinctItems, multipleOfStep, numberRange, RECORD_KEYS, twinNumber, type Boundary } from './boundary-values'
import { sentinelFor } from './boundary-strings'
import { kChoice, kLeaf, kNumber, kRepeat, materialize, type BoundaryNumber, type Choice, type Leaf, type Materialized } from './example-tokens'
import type { TSchema } from '@sinclair/typebox'
import { placesLiteral, MAX_LITERAL_EXAMPLES } from './converter-literals'
import { recursionCut } from './recursion-depth'
type Fc = typeof FastCheck
type Arbitrary = FastCheck.Arbitrary<unknown>

/** One generated example: its value and the sentinels it holds, by JSON pointer (array items as `*`). */
export interface GeneratedExample {
  readonly value: unknown
  /** Sentinel → where it is in the example. */
  readonly sentinels: ReadonlyMap<string, string>
  /**
   * For a boundary example holding numbers: the same example with each of them moved to a neighbour (19.98 for
   * 19.99), and their places (JSON of their paths).
   */
  readonly twin?: { readonly value: unknown, readonly numbers: ReadonlySet<string> }
}

/** How to build examples of one schema. */
export interface GenerationOptions {
  /** Resolves a `$ref` (an `$id` of the application's schemas); `undefined` when it names nothing. */
  readonly resolveRef: RefResolver
  /** How many examples to sample (every enum member is added on top when sampling missed one). */
  readonly count: number
  readonly seed: number
  /** The regular expressions of the string formats the application declares as one (its Ajv's), for their strings. */
  readonly formats?: FormatPatterns
  /** The strings the converters on the way compare against (./converter-literals.ts), most likely first. */
  readonly literals?: readonly string[]
  /** Also one example with no optional field at the top (a partial update's smallest body), after the boundaries. */
  readonly bare?: boolean
}

/** The boundaries whose examples are about strings: their numbers and flags (those of `spaces`) get no twin, replayed once. */
const TWINLESS: ReadonlySet<Boundary> = new Set(['padded', 'blank', 'lines'])

/** Where an arbitrary is built: the schema and options, and the enum nodes met (for coverage). */
interface Builder {
  readonly fc: Fc
  readonly options: GenerationOptions
  readonly choices: Set<JsonSchema>
  /** Generate toward this enum node and value: the parts that hold it are present, with that value. */
  readonly forced: { readonly node: JsonSchema, readonly value: unknown } | undefined
  readonly holds: Map<JsonSchema, boolean>
  /** True past the depth of a recursion, where optional parts are left out (./recursion-depth.ts). */
  readonly tooDeep: (node: JsonSchema, depth: number) => boolean
  /** For a boundary example: the boundary, and how many numbers it holds so far (each one differs). */
  readonly boundary?: { readonly at: Boundary, numbers: number }
  /** For the first item of a list at the `items` boundary (at `empty`): as bare as its schema allows (`null`, `{}`, `[]`). */
  readonly bare?: boolean
  /** For an example of a literal: the literal, and whether some string node accepts it. */
  readonly literal?: { readonly value: string, placed: boolean }
  /** Inside an item of a list of objects made long at the `large` boundary: lists of objects here stay short. */
  readonly paged?: boolean
  /** Inside a list's item: at `lines`, its strings hold no line break (an entry's key becomes a map's, which `^(.*)$` refuses). */
  readonly listed?: boolean
}

function membersOf (node: JsonSchema): unknown[] | undefined {
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum
  if ('const' in node) return [node.const]
  const union = node.anyOf ?? node.oneOf
  const constants = Array.isArray(union) && union.length > 0 && union.every((member) => typeof member === 'object' && member !== null && 'const' in member)
  return constants ? union.map((member) => (member as JsonSchema).const) : undefined
}

/** True when `node` holds the forced enum node somewhere (through `$ref`s too). */
function holdsForced (builder: Builder, node: unknown, seen = new Set<unknown>()): boolean {
  const target = builder.forced?.node
  if (target === undefined || typeof node !== 'object' || node === null || seen.has(node)) return false
  const known = builder.holds.get(node as JsonSchema)
  if (known !== undefined) return known
  seen.add(node)
  const resolvedNode = asNode(node, builder.options.resolveRef) ?? {}
  const result = resolvedNode === target || subschemasOf(resolvedNode as TSchema).some((child) => holdsForced(builder, child, seen))
  builder.holds.set(node as JsonSchema, result)
  return result
}

function numberArbitrary (builder: Builder, node: JsonSchema, integer: boolean): Arbitrary {
  const { fc, boundary } = builder
  if (boundary !== undefined) {
    const value = boundaryNumber(node, integer, boundary.at, ++boundary.numbers)
    return fc.constant({ [kNumber]: true, value, twin: TWINLESS.has(boundary.at) ? value : twinNumber(node, integer, value) })
  }
  const range = numberRange(node, integer)
  const step = range.step === 0 ? 1 : range.step
  const low = Number.isFinite(range.low) ? range.low : -1000
  const high = Number.isFinite(range.high) ? range.high : low + 2000
  const first = Math.ceil(low / step)
  const last = Math.max(first, Math.floor(high / step))
  const multiples = fc.integer({ min: first, max: Math.min(last, first + 100_000) })
  return integer ? multiples.map((multiple) => Math.round(multiple * step)) : multiples.map((multiple) => multipleOfStep(multiple, step))
}

function objectArbitrary (builder: Builder, node: JsonSchema, depth: number): Arbitrary {
  const { fc } = builder
  const properties = (typeof node.properties === 'object' && node.properties !== null ? node.properties : {}) as Record<string, unknown>
  const required = new Set(Array.isArray(node.required) ? node.required as string[] : [])
  const [shape, requiredKeys, inner]: [Record<string, Arbitrary>, string[], Builder] = [{}, [], { ...builder, bare: false }]
  for (const name of Object.keys(properties)) {
    const sub = properties[name]
    const forcedHere = holdsForced(builder, sub)
    if (!required.has(name) && !forcedHere && (builder.bare === true || builder.tooDeep(node, depth))) continue
    setOwn(shape, name, arbitraryOf(inner, sub, depth + 1))
    if (required.has(name) || forcedHere || builder.boundary !== undefined || builder.literal !== undefined) requiredKeys.push(name)
  }
  for (const name of required) if (!Object.hasOwn(shape, name)) setOwn(shape, name, fc.constant({ [kLeaf]: {} }))
  const record = fc.record(shape, { requiredKeys })
  const extra = typeof node.additionalProperties === 'object' ? node.additionalProperties : Object.values((node.patternProperties ?? {}) as object)[0]
  if (typeof extra !== 'object' || extra === null || builder.tooDeep(node, depth)) return record
  const keys = builder.boundary === undefined ? { maxKeys: 2 } : builder.boundary.at === 'empty' ? { maxKeys: 0 } : { minKeys: 1, maxKeys: 1 }
  const [first, second] = recordKeys(fc, node, properties)
  // At `items`, a record's entries as a list's items: the first as bare as its schema allows (a falsy entry dropped).
  const entries = builder.boundary?.at === 'items'
    ? fc.record({ [first]: arbitraryOf({ ...inner, boundary: { at: 'empty', numbers: 0 }, bare: true }, extra, depth + 1), [second]: arbitraryOf(inner, extra, depth + 1) })
    : fc.dictionary(fc.constantFrom(first, second), arbitraryOf(inner, extra, depth + 1), keys)
  return fc.tuple(record, entries).map(([own, more]) => ({ ...more as object, ...own as object }))
}

/**
 * The keys of a record's generated entries: {@link RECORD_KEYS}, or where the record's key pattern refuses them
 * (`Type.Record(Type.String({ pattern: '^[a-z]+$' }), V)`), the two shortest strings fast-check makes that it takes
 * (seeded), neither a field the object declares: an entry under another key is one the pattern does not govern.
 */
function recordKeys (fc: Fc, node: JsonSchema, properties: Record<string, unknown>): readonly string[] {
  const [source] = typeof node.additionalProperties === 'object' ? [] : Object.keys((node.patternProperties ?? {}) as object)
  const pattern = source === undefined ? undefined : patternOf({ pattern: source })
  if (pattern === undefined || RECORD_KEYS.every((key) => pattern.test(key))) return RECORD_KEYS
  let made: string[] = []
  try {
    made = fc.sample(fc.stringMatching(new RegExp(source as string)), { seed: 1, numRuns: 40 })
  } catch {
    // A pattern fast-check cannot make strings of: the entries keep their keys, as before.
  }
  const fitting = [...new Set(made)].filter((key) => pattern.test(key) && !Object.hasOwn(properties, key) && key !== '__proto__')
  fitting.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
  return fitting.length >= 2 ? fitting.slice(0, 2) : RECORD_KEYS
}

function arrayArbitrary (builder: Builder, node: JsonSchema, depth: number): Arbitrary {
  const { fc } = builder
  const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined
  if (tuple !== undefined) return fc.tuple(...(tuple as unknown[]).map((item) => arbitraryOf(builder, item, depth + 1)))
  const min = typeof node.minItems === 'number' ? node.minItems : 0
  const floor = holdsForced(builder, node.items) || builder.literal !== undefined ? Math.max(min, 1) : min
  if (min === 0 && builder.tooDeep(node, depth)) return fc.constant([])
  if (builder.boundary !== undefined) {
    const item = asNode(node.items, builder.options.resolveRef) ?? {}
    const plain = membersOf(item) !== undefined || ['string', 'number', 'integer', 'boolean'].includes(typeOf(item) ?? '')
    const kind = plain ? 'plain' : builder.paged === true ? 'nested' : 'paged'
    const length = builder.boundary.at === 'empty' ? floor : Math.max(floor, boundaryLength(node, builder.boundary.at, kind))
    // Without duplicates (or at `items`, the first bare): an arbitrary per item (boundary integers differ), alike kept once.
    if (node.uniqueItems !== true && builder.boundary.at !== 'items') return fc.array(arbitraryOf(kind === 'paged' ? { ...builder, paged: true } : builder, node.items, depth + 1), { minLength: length, maxLength: length })
    const first: Builder = builder.boundary.at === 'items' ? { ...builder, boundary: { at: 'empty', numbers: 0 }, bare: true } : builder
    const items = Array.from({ length }, (_, index) => arbitraryOf(index === 0 ? first : builder, node.items, depth + 1))
    if (node.uniqueItems === true) return fc.tuple(...items).map((made) => distinctItems(made, itemKey()))
    // Where it takes duplicates and has room, the last item twice (a list deduplicated with new Set loses one).
    const room = typeof node.maxItems !== 'number' || node.maxItems > length
    return fc.tuple(...items).map((made) => room && made.length > 1 ? { [kRepeat]: made } : made)
  }
  const [item, length] = [arbitraryOf(builder, node.items, depth + 1), { minLength: floor, maxLength: Math.max(floor, Math.min(typeof node.maxItems === 'number' ? node.maxItems : min + 3, min + 3)) }]
  if (builder.literal === undefined) return fc.array(item, length)
  // A literal in the first item only: items alike with one key are one entry in a map (a client's duplicate, no branch).
  return fc.tuple(item, fc.array(arbitraryOf({ ...builder, literal: undefined }, node.items, depth + 1), { minLength: length.minLength - 1, maxLength: length.maxLength - 1 })).map(([first, more]) => [first, ...more])
}

/** The key of a sampled item: its values, a free string unique (its sentinel will be), another string by its schema. */
function itemKey (): (item: unknown) => string {
  let free = 0
  const keyOf = (_key: string, value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value
    if (kNumber in value) return (value as BoundaryNumber).value
    if (kChoice in value) return [(value as Choice).value]
    if (!(kLeaf in value)) return value
    const leaf = value as Leaf
    // An empty or blank string holds no sentinel: two of one schema are alike.
    return (sentinelFor(leaf[kLeaf], 1, leaf.boundary) ?? '').trim() === '' ? leaf[kLeaf] : `free ${++free}`
  }
  return (item) => JSON.stringify(item, keyOf)
}

/** The members of a union a boundary example picks among: for `null`, the one taking `null` if any; else the others, if any. */
function boundaryMembers (builder: Builder, members: unknown[]): unknown[] {
  if (builder.boundary === undefined) return members
  const taking = (member: unknown): boolean => allowsNull(asNode(member, builder.options.resolveRef) ?? {})
  const picked = members.filter((member) => taking(member) === (builder.boundary?.at === 'null' || builder.bare === true))
  return picked.length > 0 ? picked : members
}

/** The arbitrary of one schema node. */
function arbitraryOf (builder: Builder, schema: unknown, depth: number): Arbitrary {
  const { fc } = builder
  if (typeof schema !== 'object' || schema === null) return fc.constant({ [kLeaf]: {} })
  const node = asNode(schema, builder.options.resolveRef) ?? {}
  const members = membersOf(node)
  if (members !== undefined) {
    builder.choices.add(node)
    if (builder.forced?.node === node) return fc.constant({ [kChoice]: node, value: builder.forced.value })
    return fc.constantFrom(...members).map((value) => ({ [kChoice]: node, value }))
  }
  if ((builder.boundary?.at === 'null' || builder.bare === true) && allowsNull(node)) return fc.constant(null)
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (Array.isArray(union) && union.length > 0) {
    const toward = union.filter((member) => holdsForced(builder, member))
    return fc.oneof(...boundaryMembers(builder, toward.length > 0 ? toward : union).map((member) => arbitraryOf(builder, member, depth + 1)))
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    const { allOf, ...own } = node
    const parts = [...(allOf as unknown[]), ...(typeOf(own) === 'object' ? [own] : [])].map((part) => arbitraryOf(builder, part, depth + 1))
    return fc.tuple(...parts).map((values) => values.every(isSchemaObject) ? values.reduce((all: object, value) => ({ ...all, ...value }), {}) : values[0])
  }
  switch (typeOf(node)) {
    case 'string': return fc.constant(builder.literal !== undefined && placesLiteral(node, builder.literal, builder.options.formats)
      ? builder.literal.value
      : { [kLeaf]: node, boundary: builder.boundary?.at === 'lines' && builder.listed === true ? undefined : builder.boundary?.at })
    case 'integer': return numberArbitrary(builder, node, true)
    case 'number': return numberArbitrary(builder, node, false)
    case 'boolean': {
      // At a boundary, with the other flag for its twin (a renamed flag written as a constant makes the two one).
      const flag = builder.boundary !== undefined && builder.boundary.at !== 'empty' && builder.boundary.at !== 'null' && builder.boundary.at !== 'negative'
      return builder.boundary === undefined ? fc.boolean() : fc.constant({ [kNumber]: true, value: flag, twin: TWINLESS.has(builder.boundary.at) ? flag : !flag })
    }
    case 'null': return fc.constant(null)
    case 'array': return arrayArbitrary(builder.boundary?.at === 'lines' ? { ...builder, listed: true } : builder, node, depth)
    case 'object': return objectArbitrary(builder, node, depth)
    default: return fc.constant({ [kLeaf]: {} })
  }
}

/**
 * Examples of `schema`: one per boundary (./boundary-values.ts), then `options.count` sampled ones, then one more
 * for each enum member sampling did not give (generated toward it: the optional fields and union members that hold
 * it present).
 * @example
 * ```ts
 * for (const { value, sentinels } of generateExamples(form, { resolveRef, count: 200, seed: 1 })) replay(value, sentinels)
 * ```
 */
export function generateExamples (schema: unknown, options: GenerationOptions): GeneratedExample[] {
  // fast-check, an optional dependency, is loaded when examples are generated (../core/optional-libraries.ts).
  const fc = toolLibrary<Fc>('fast-check', 'verify')
  const builder: Builder = { fc, options, choices: new Set(), forced: undefined, holds: new Map(), tooDeep: recursionCut(options.resolveRef) }
  const examples: GeneratedExample[] = []
  const covered = new Map<JsonSchema, Set<string>>()
  const leaves = new Map<JsonSchema, unknown>()
  const sampleWith = (from: Builder, runs: number): boolean => {
    const arbitrary = arbitraryOf(from, schema, 0)
    if (from.literal?.placed === false) return false
    for (const sampled of fc.sample(arbitrary, { seed: options.seed, numRuns: runs })) {
      const made: Materialized = { sentinels: new Map(), covered, numbers: new Set(), twin: false, formats: options.formats, leaves }
      const value = materialize(sampled, made)
      const twin = made.numbers.size === 0 ? undefined : { value: materialize(sampled, { ...made, sentinels: new Map(), numbers: new Set(), twin: true }), numbers: made.numbers }
      examples.push({ value, sentinels: made.sentinels, ...(twin === undefined ? {} : { twin }) })
    }
    return true
  }
  for (const at of BOUNDARIES) {
    sampleWith({ ...builder, boundary: { at, numbers: 0 } }, 1)
    // Lines only where some string takes them: an example of numbers alone would replay `padded` again.
    if (at === 'lines' && !JSON.stringify(examples[examples.length - 1]?.value ?? null).includes('\\n')) examples.pop()
  }
  if (options.bare === true) sampleWith({ ...builder, bare: true }, 1)
  sampleWith(builder, options.count)
  for (const node of [...builder.choices]) {
    for (const value of membersOf(node) ?? []) {
      if (covered.get(node)?.has(JSON.stringify(value)) === true) continue
      sampleWith({ ...builder, choices: new Set(), forced: { node, value }, holds: new Map() }, 1)
    }
  }
  let literals = 0
  for (const value of options.literals ?? []) {
    if (literals < MAX_LITERAL_EXAMPLES && sampleWith({ ...builder, choices: new Set(), literal: { value, placed: false } }, 1)) literals++
  }
  return examples
}
