import { test } from 'tap'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { applyShape, compileShapeWalk, requestRules, walkRules, type WalkRules } from '../../lib/values/shape-walk'
import { kGenerated } from '../../lib/core/symbols'

/**
 * The one shape walk: requests of older versions lose the fields their (rebuilt) schemas lack; bodies migrated
 * outside routing get their version's schema applied (every closed schema, defaults, `$ref`s).
 */

const refs: Record<string, TSchema> = {}
const CLOSED: WalkRules = walkRules({ removeFrom: 'closed', fillDefaults: true, resolveRef: (ref) => refs[ref] })
const REQUEST_RULES = requestRules((ref) => refs[ref])

/** A schema as a version rebuilt it (what the request rules clean). */
function rebuilt<T extends TSchema> (schema: T): T {
  return Object.assign(Object.create(null) as object, schema, { [kGenerated]: true }) as T
}

function requestWalk (schema: TSchema, data: unknown): unknown {
  compileShapeWalk(schema, REQUEST_RULES)?.(data)
  return data
}

test('why not TypeBox Value.Clean: a plain JSON Schema object (no TypeBox kind) is left alone by it', (t) => {
  const raw = { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } as unknown as TSchema
  t.same(Value.Clean(raw, { name: 'Ada', secret: 1 }), { name: 'Ada', secret: 1 }, 'TypeBox keeps the undeclared field')
  t.same(applyShape(raw, CLOSED, { name: 'Ada', secret: 1 }), { name: 'Ada' }, 'the walk removes it')
  t.end()
})

test('why not TypeBox Value.Clean: it removes fields that additionalProperties: true accepts', (t) => {
  const open = Type.Object({ name: Type.String() }, { additionalProperties: true })
  t.same(Value.Clean(open, { name: 'Ada', extra: 1 }), { name: 'Ada' }, 'TypeBox removes the accepted field')
  t.same(applyShape(open, CLOSED, { name: 'Ada', extra: 1 }), { name: 'Ada', extra: 1 }, 'the walk keeps it')
  t.end()
})

test('why not TypeBox Value.Clean: a union member is chosen only by fully valid data, so one wrong-typed field keeps every HEAD field', (t) => {
  const Card = Type.Object({ kind: Type.Literal('card'), last4: Type.String(), brand: Type.Optional(Type.String({ default: 'visa' })) })
  const Bank = Type.Object({ kind: Type.Literal('bank'), iban: Type.String() })
  const Payment = Type.Union([Card, Bank])
  t.same(Value.Clean(Payment, { kind: 'card', last4: 1234, internal: 1 }), { kind: 'card', last4: 1234, internal: 1 }, 'TypeBox removes nothing')
  t.same(applyShape(Payment, CLOSED, { kind: 'card', last4: 1234, internal: 1 }), { kind: 'card', last4: 1234, brand: 'visa' }, 'the walk picks the member, removes, fills')
  t.end()
})

test('request rules: only schemas a version rebuilt lose fields; unchanged schemas behave as in plain Fastify', (t) => {
  const Unchanged = Type.Object({ a: Type.String() })
  t.equal(compileShapeWalk(Unchanged, REQUEST_RULES), null, 'nothing to do for a schema no version rebuilt')
  const Rebuilt = rebuilt(Type.Object({ a: Type.String(), nested: Type.Optional(Unchanged) }))
  t.same(requestWalk(Rebuilt, { a: 'x', later: 1, nested: { a: 'y', kept: 2 } }), { a: 'x', nested: { a: 'y', kept: 2 } })
  const withDefault = rebuilt(Type.Object({ a: Type.String({ default: 'd' }) }))
  t.same(requestWalk(withDefault, {}), {}, 'no defaults on requests (Ajv fills them)')
  t.end()
})

test('request rules: values of records (patternProperties, additionalProperties) are walked too', (t) => {
  const Entry = rebuilt(Type.Object({ amount: Type.Number() }))
  const ByPattern = rebuilt(Type.Object({}, { patternProperties: { '^x-': Entry }, additionalProperties: false }))
  t.same(requestWalk(ByPattern, { 'x-a': { amount: 1, leak: true }, other: 1 }), { 'x-a': { amount: 1 } })
  const ByExtra = Type.Object({}, { additionalProperties: Entry })
  t.same(requestWalk(ByExtra, { one: { amount: 1, leak: true } }), { one: { amount: 1 } })
  t.end()
})

test('record values: a named property is never a record value; the first matching pattern wins over additionalProperties', (t) => {
  const closed = (key: string): TSchema => Type.Object({ [key]: Type.Number() }, { additionalProperties: false })
  const Records = Type.Object({ pk: Type.Object({}, { additionalProperties: true }) }, {
    patternProperties: { '^p': closed('x'), '^pa': closed('y') },
    additionalProperties: closed('z')
  })
  const data = { pk: { x: 1, z: 2 }, pa: { x: 1, y: 2, z: 3 }, q: { x: 1, z: 2 } }
  t.same(applyShape(Records, CLOSED, data), { pk: { x: 1, z: 2 }, pa: { x: 1 }, q: { z: 2 } })
  t.end()
})

test('boolean subschemas (patternProperties: { p: true }) are valid JSON Schema: their values are kept, never walked', (t) => {
  const closed = Type.Object({ z: Type.Number() }, { additionalProperties: false })
  const Records = Type.Unsafe({ type: 'object', patternProperties: { '^p': true }, additionalProperties: closed })
  const data = { pa: { x: 1, z: 2 }, q: { x: 1, z: 2 } }
  t.same(applyShape(Records, CLOSED, data), { pa: { x: 1, z: 2 }, q: { z: 2 } }, 'a key the `true` pattern matches is not an additional property')
  t.end()
})

test('an object with its own fields and a union: the union member does not remove the object\'s own fields', (t) => {
  const Base = Type.Object({ id: Type.String() })
  const Withunion = { ...Base, anyOf: [Type.Object({ kind: Type.Literal('a'), a: Type.String() }), Type.Object({ kind: Type.Literal('b'), b: Type.String() })] } as unknown as TSchema
  t.same(applyShape(Withunion, CLOSED, { id: '1', kind: 'a', a: 'x', secret: 1 }), { id: '1', kind: 'a', a: 'x' })
  t.end()
})

test('allOf: fields are removed where all members are known, never by one member alone', (t) => {
  const Both = Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String({ default: 'B' }) })])
  t.same(applyShape(Both, CLOSED, { a: 'x', c: 1 }), { a: 'x', b: 'B' })
  t.end()
})

test('several plausible union members: only fields none of them declares are removed', (t) => {
  const A = Type.Object({ a: Type.Optional(Type.String()) }, { additionalProperties: false })
  const B = Type.Object({ b: Type.Optional(Type.String()) }, { additionalProperties: false })
  t.same(applyShape(Type.Union([A, B]), CLOSED, { a: 'x', b: 'y', c: 1 }), { a: 'x', b: 'y' })
  const Anything = Type.Object({}, { additionalProperties: true })
  t.same(applyShape(Type.Union([A, Anything]), CLOSED, { a: 'x', c: 1 }), { a: 'x', c: 1 }, 'a member accepting any field keeps them')
  t.end()
})

test('$refs are followed (recursive schemas included), with defaults behind them; unknown ones stay open', (t) => {
  refs.Node = Type.Object({ name: Type.String({ default: 'n' }), children: Type.Array(Type.Ref('Node')) }, { $id: 'Node' })
  const tree = { children: [{ name: 'a', children: [{ children: [], drop: 1 }], drop: 2 }], drop: 3 }
  t.same(applyShape(Type.Ref('Node'), CLOSED, tree), { name: 'n', children: [{ name: 'a', children: [{ name: 'n', children: [] }] }] })
  t.same(applyShape(Type.Object({ x: Type.Ref('Unknown') }), CLOSED, { x: { kept: 1 }, y: 1 }), { x: { kept: 1 } })
  t.same(applyShape(Type.Ref('Node'), CLOSED, undefined), undefined, 'no default for the whole body when the schema has none')
  t.same(applyShape(Type.String({ default: 'd' }), CLOSED, undefined), 'd', 'the default when the body is missing')
  t.end()
})

test('a default is a fresh copy, and a field named __proto__ is defined, never assigned', (t) => {
  const list: string[] = []
  const Listed = Type.Object({ tags: Type.Array(Type.String(), { default: list }) })
  const first = applyShape(Listed, CLOSED, {}) as { tags: string[] }
  first.tags.push('x')
  t.same(list, [], 'the schema\'s default is not shared with the data')
  const Hostile = Type.Object({ ['__proto__']: Type.Object({ polluted: Type.Boolean() }, { default: { polluted: true } }) })
  const result = applyShape(Hostile, CLOSED, {}) as Record<string, unknown>
  t.ok(Object.hasOwn(result, '__proto__'), 'own field')
  t.equal(Object.getPrototypeOf(result), Object.prototype, 'prototype unchanged')
  const Nested = Type.Object({ ['__proto__']: Type.Optional(Type.Object({ polluted: Type.Boolean({ default: true }) })) })
  t.same(applyShape(Nested, CLOSED, {}), {}, 'a missing __proto__ field is not walked into Object.prototype')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype not polluted')
  t.end()
})

test('property: a closed object keeps exactly its declared fields, their values unchanged, whatever else it carries', (t) => {
  const declared = ['id', 'name', 'email']
  const Closed = Type.Object(Object.fromEntries(declared.map((key) => [key, Type.Optional(Type.Unknown())])))
  fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue()), fc.dictionary(fc.constantFrom(...declared), fc.jsonValue()), (extra, own) => {
    const data = { ...extra, ...own }
    const before = structuredClone(data) as Record<string, unknown>
    const result = applyShape(Closed, CLOSED, data) as Record<string, unknown>
    const kept = Object.keys(result).sort()
    const expected = Object.keys(before).filter((key) => declared.includes(key)).sort()
    return JSON.stringify(kept) === JSON.stringify(expected) && kept.every((key) => JSON.stringify(result[key]) === JSON.stringify(before[key]))
  }), { numRuns: 300 })
  t.pass('300 random objects')
  t.end()
})

test('property: the request walk of an unchanged schema, and a second walk of any schema, change nothing', (t) => {
  const Rebuilt = rebuilt(Type.Object({ a: Type.Optional(Type.String()), list: Type.Optional(Type.Array(rebuilt(Type.Object({ b: Type.Number() })))) }))
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    const once = structuredClone(value)
    requestWalk(Rebuilt, once)
    const twice = structuredClone(once)
    requestWalk(Rebuilt, twice)
    const untouched = structuredClone(value)
    requestWalk(Type.Object({ a: Type.String() }), untouched)
    return JSON.stringify(twice) === JSON.stringify(once) && JSON.stringify(untouched) === JSON.stringify(value)
  }), { numRuns: 300 })
  t.pass('300 random values')
  t.end()
})
