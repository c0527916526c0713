import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import { compileCollector, compilePlaceFinder, MAX_PLACES, type Holder, type Occurrence } from '../../lib/values/occurrences'

/**
 * Occurrences of a target schema in data, wherever the body's schema nests it: each keyword that describes the
 * values inside data (properties, patternProperties, additionalProperties, tuple positions, items after them,
 * union members, allOf members, $ref) is followed as the collectors and place finders say.
 */

const TARGET = { type: 'object', properties: { n: { type: 'number' } } } as unknown as TSchema
const schemas: Record<string, TSchema> = { Target: TARGET }
const target = { isTarget: (node: TSchema) => node === TARGET, resolveRef: (ref: string) => schemas[ref] }

const ROOT = {
  type: 'object',
  properties: {
    a: TARGET,
    b: TARGET,
    pz: { type: 'object' },
    tuple: { type: 'array', items: [{ type: 'string' }, TARGET] },
    union: { anyOf: [{ type: 'string' }, TARGET] },
    both: { allOf: [{ type: 'object' }, TARGET] }
  },
  patternProperties: { '^p': TARGET },
  additionalProperties: { type: 'array', prefixItems: [{ type: 'string' }, TARGET], items: { $ref: 'Target' } }
} as unknown as TSchema

/** Data with the target under every keyword, and values the collector must leave alone beside them. */
function body (): Record<string, unknown> {
  return {
    a: { n: 1 },
    b: undefined,
    pz: { n: 'named, so not a pattern value' },
    pq: ['string', { n: 'a pattern value, so not an additional one' }],
    extra: ['string', { n: 2 }, { n: 3 }, { n: 4 }],
    tuple: ['string', { n: 5 }],
    union: { n: 6 },
    text: 'string',
    both: { n: 7 }
  }
}

test('a collector finds the target under each keyword, in schema order', (t) => {
  const collect = compileCollector(ROOT, target)
  if (collect === null) return t.fail('the target occurs in ROOT')
  const data = body()
  const out: Occurrence[] = []
  collect({ body: data }, 'body', out)
  const values = out.map(([holder, key]) => (holder as Holder)[key])
  t.same(values, [
    { n: 1 }, // properties (`b` is undefined: no occurrence)
    { n: 5 }, // tuple position 1 (`items` as a list)
    { n: 6 }, // the union member the data belongs to
    { n: 7 }, // an allOf member
    ['string', { n: 'a pattern value, so not an additional one' }], // patternProperties (not `pz`: a named property)
    { n: 2 }, // additionalProperties: prefixItems position 1
    { n: 3 }, { n: 4 } // items after prefixItems, through $ref
  ])
  t.equal(out[0][0], data, 'the holder of a property is the object')
  t.equal(out.length, 8)
  t.end()
})

test('a place finder names the same places, outer before inner, array items as *', (t) => {
  const find = compilePlaceFinder(ROOT, target)
  if (find === null) return t.fail('the target occurs in ROOT')
  t.same(find(body()).map(([place]) => place), ['/a', '/tuple/*', '/union', '/both', '/pq', '/extra/*'])
  t.equal(compilePlaceFinder({ type: 'object', properties: { s: { type: 'string' } } } as unknown as TSchema, target), null, 'no target, no finder')
  t.end()
})

test('a union member is chosen by its discriminator, or by its own anyOf (else oneOf) members', (t) => {
  const tagged = (kind: string, extra: object = {}): TSchema => ({ type: 'object', properties: { kind: { const: kind } }, ...extra }) as unknown as TSchema
  const bothLists = { anyOf: [{ type: 'string' }], oneOf: [{ type: 'object' }] }
  const root = { anyOf: [tagged('a'), bothLists, { allOf: [tagged('b'), TARGET] }] } as unknown as TSchema
  const collect = compileCollector(root, target)
  if (collect === null) return t.fail('the target occurs in the union')
  const count = (data: unknown): number => {
    const out: Occurrence[] = []
    collect({ body: data }, 'body', out)
    return out.length
  }
  t.equal(count({ kind: 'b', n: 1 }), 1, 'kind b: the member holding the target')
  t.equal(count({ kind: 'a', n: 1 }), 0, 'kind a: the first member')
  t.equal(count({ n: 1 }), 0, 'no kind: the first member')
  t.equal(count('text'), 0, 'a string: the member whose anyOf takes strings')
  t.end()
})

test('a discriminator allowing several values (an enum, a union of consts) chooses its member; a value none allows, the first plausible one', (t) => {
  const kinds = (...values: string[]): object => values.length === 1 ? { const: values[0] } : { anyOf: values.map((value) => ({ const: value })) }
  const member = (kind: object, extra: object = {}): object => ({ type: 'object', required: ['kind'], properties: { kind, ...extra } })
  const root = { anyOf: [member(kinds('person', 'trader')), member({ enum: ['club', 'charity'] }, { n: TARGET }), member(kinds('company'))] } as unknown as TSchema
  const collect = compileCollector(root, target)
  if (collect === null) return t.fail('the target occurs in the union')
  const count = (data: unknown): number => {
    const out: Occurrence[] = []
    collect({ body: data }, 'body', out)
    return out.length
  }
  t.equal(count({ kind: 'charity', n: {} }), 1, 'charity: the member whose enum allows it')
  t.equal(count({ kind: 'trader', n: {} }), 0, 'trader: the first member')
  t.equal(count({ kind: 'trust', n: {} }), 0, 'a kind none allows (a later version\'s): the first plausible member, as without a discriminator')
  const reordered = { anyOf: [member({ enum: ['club', 'charity'] }, { n: TARGET }), member(kinds('company'))] } as unknown as TSchema
  t.equal((() => { const out: Occurrence[] = []; compileCollector(reordered, target)?.({ body: { kind: 'trust', n: {} } }, 'body', out); return out.length })(), 1,
    'a kind none allows: the first member, whose discriminator does not allow it either')
  t.end()
})

test('a Type.Recursive names its own $id: collectors and place finders follow it at any depth, in time linear in the data', (t) => {
  const Tree = Type.Recursive((This) => Type.Object({ old: Type.Optional(Type.String({ deprecated: true })), children: Type.Optional(Type.Array(This)) }), { $id: 'Tree' })
  const root = Type.Object({ tree: Tree })
  const old = Tree.properties.old
  const known = { isTarget: (node: TSchema) => node === old, resolveRef: () => undefined }
  const find = compilePlaceFinder(root, known)
  t.ok(find, 'the target is found behind the $ref to the schema\'s own $id (the application knows no schema "Tree")')
  const nested = (depth: number): unknown => {
    let value: Record<string, unknown> = { old: 'x' }
    for (let level = 1; level < depth; level++) value = { old: 'x', children: [value] }
    return value
  }
  const places = (find?.({ tree: nested(3) }) ?? []).map(([place]) => place)
  t.strictSame(places, ['/tree/old', '/tree/children/*/old', '/tree/children/*/children/*/old'], 'every depth is its own place')
  const found: Occurrence[] = []
  compileCollector(root, known)?.({ body: { tree: nested(3) } }, 'body', found)
  t.equal(found.length, 3, 'a collector (converters, guards) finds them too')
  // 100,000 levels: an explicit stack (a recursive walk overflows the call stack long before). Every level is a place,
  // each pointer as long as its depth: the first MAX_PLACES only are reported, so that such a body (a client's) costs
  // no quadratic text (2.5 GB for 500 kB on Node.js 26, whose maps flatten each key to hash it).
  const deep = find?.({ tree: nested(100_000) }) ?? []
  t.equal(deep.length, MAX_PLACES, 'the first places, outer before inner')
  t.equal(deep.at(-1)?.[0], `/tree${'/children/*'.repeat(MAX_PLACES - 1)}/old`, 'the deepest one reported')
  // Deep places only (no target above them): the places are told apart by number, the pointers written once each.
  let bottom: Record<string, unknown> = { old: 'x' }
  for (let level = 1; level < 100_000; level++) bottom = { children: [bottom] }
  const only = find?.({ tree: bottom }) ?? []
  t.same(only.map(([place]) => place.length), [5 + 11 * 99_999 + 4], 'the one place, at the bottom')
  t.end()
})
