/**
 * `exampleOf` (lib/values/examples.ts), the one generator of deterministic example values (the upgrade guide's, and
 * `verify`'s strings without a sentinel): patterns, recursion, examples of another type, schemas no value matches,
 * examples built toward a value of one node, and numbers that show what a converter does to them.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Ajv from 'ajv'
import { exampleOf } from '../../lib/values/examples'

test('a string matches its pattern (the same string every time); one no string can be made for is an error naming where', (t) => {
  const Code = Type.Object({ code: Type.String({ pattern: '^C[0-9]{3}$' }), plain: Type.String({ pattern: 'amp' }) })
  const value = exampleOf(Code) as { code: string, plain: string }
  t.match(value.code, /^C[0-9]{3}$/)
  t.equal(value.plain, 'example', 'a pattern the plain example already matches keeps it')
  t.same(exampleOf(Code), value, 'deterministic')
  t.same(exampleOf(Type.String({ pattern: '^[a-z]{2,3}$', minLength: 3 })), exampleOf(Type.String({ pattern: '^[a-z]{2,3}$', minLength: 3 })))
  t.match(exampleOf(Type.String({ pattern: '^[a-z]{2,3}$', minLength: 3 })), /^[a-z]{3}$/, 'and its lengths')
  t.throws(() => exampleOf(Type.Object({ list: Type.Array(Type.Object({ id: Type.String({ pattern: '^(?!x)a$' }) })) })),
    /no string could be made to match the pattern "\^\(\?!x\)a\$": give the schema an example .* at '\/list\/0\/id'/)
  t.end()
})

test('no value matches not: {} (an enum emptied by didntHave): an error naming where', (t) => {
  t.throws(() => exampleOf(Type.Object({ kind: Type.Never() })), /no value is valid at '\/kind'/)
  t.throws(() => exampleOf({ not: {} }), /no value is valid at the root/)
  t.end()
})

test('recursion: an optional property recursing into its own schema is left out; a Type.Recursive\'s own $id resolves', (t) => {
  const Tree = Type.Recursive((This) => Type.Object({ name: Type.String(), children: Type.Optional(Type.Array(This)), parent: Type.Optional(This) }), { $id: 'Tree' })
  t.same(exampleOf(Type.Object({ tree: Tree }), { includeOptional: true }), { tree: { name: 'example' } },
    'children and parent, which can hold a tree again, are left out (before: too deep, no example at all)')
  const Wrapper = Type.Object({ first: Type.Optional(Tree), second: Type.Optional(Tree) })
  t.same(exampleOf(Wrapper, { includeOptional: true }), { first: { name: 'example' }, second: { name: 'example' } }, 'a schema used twice is no recursion')
  const toward = { isTarget: (node: object) => (node as { pattern?: string }).pattern === '^x$', value: 'x' }
  const Deep = Type.Recursive((This) => Type.Object({ child: Type.Optional(This), mark: Type.Optional(Type.String({ pattern: '^x$' })) }), { $id: 'Deep' })
  t.same(exampleOf(Deep, { toward }), { mark: 'x' }, 'toward a value inside a recursive schema')
  t.end()
})

test('a default or example of another type (kept by an instruction that changed the type) is not used', (t) => {
  t.equal(exampleOf(Type.String({ examples: [3], default: 4 })), 'example')
  t.equal(exampleOf(Type.String({ pattern: '^[0-9]+$', examples: ['abc', '12'] })) !== 'abc', true, 'nor one that misses the pattern')
  t.equal(exampleOf(Type.Integer({ examples: [7] })), 7)
  t.end()
})

test('toward a value: union members and optional properties that hold the node, given examples edited in place', (t) => {
  const Status = Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Literal('c')])
  const Body = Type.Object({
    either: Type.Union([Type.Object({ kind: Type.Literal('x') }), Type.Object({ status: Status })]),
    maybe: Type.Optional(Type.Object({ status: Status }))
  })
  const toward = { isTarget: (node: object) => node === Status, value: 'c' }
  t.same(exampleOf(Body, { toward }), { either: { status: 'c' } }, 'the union member holding it (placed once: the optional property is not needed)')
  t.same(exampleOf(Type.Object({ maybe: Body.properties.maybe }), { toward }), { maybe: { status: 'c' } }, 'an optional property holding it')
  t.same(exampleOf(Body), { either: { kind: 'x' } }, 'without it: the first member, no optional property')
  const Given = Type.Object({ id: Type.String(), status: Status }, { examples: [{ id: 'o-1', status: 'a' }] })
  t.same(exampleOf(Given, { toward }), { id: 'o-1', status: 'c' }, 'a given example holding the node: the value put in its place')
  t.same(Given.examples, [{ id: 'o-1', status: 'a' }], 'the schema\'s own example is left as it was')
  t.throws(() => exampleOf(Type.Object({ id: Type.String() }), { toward }), /the schema has no place for the value "c"/)
  t.end()
})

test('showing: the generated numbers it names are not 0 and not round, within every keyword; the others, and given ones, stay', (t) => {
  const Amounts = Type.Object({
    cents: Type.Integer({ minimum: 0 }),
    units: Type.Number({ minimum: 0 }),
    percent: Type.Integer({ minimum: 0, maximum: 100 }),
    share: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    big: Type.Integer({ minimum: 5000 }),
    below: Type.Integer({ maximum: -5, multipleOf: 3 }),
    hundredths: Type.Number({ minimum: 0, multipleOf: 0.01 }),
    zero: Type.Integer({ minimum: 0, maximum: 0 }),
    given: Type.Integer({ minimum: 0, examples: [0] }),
    lines: Type.Array(Type.Object({ quantity: Type.Integer({ minimum: 1 }), amount: Type.Integer({ minimum: 0 }) }), { minItems: 2, uniqueItems: true })
  })
  const places: string[] = []
  const plain = exampleOf(Amounts, { onNumber: (pointer) => { places.push(pointer) } })
  t.same(plain, { cents: 0, units: 0, percent: 0, share: 0.5, big: 5000, below: -6, hundredths: 0, zero: 0, given: 0, lines: [{ quantity: 1, amount: 0 }, { quantity: 2, amount: 1 }] },
    'without showing: the plain numbers (0 where the minimum is 0)')
  t.same(places, ['/cents', '/units', '/percent', '/share', '/big', '/below', '/hundredths', '/zero', '/lines/0/quantity', '/lines/0/amount', '/lines/1/quantity', '/lines/1/amount'],
    'each generated number\'s place, and not the given one')
  const showing = new Set(places.filter((place) => place !== '/lines/0/quantity'))
  const shown = exampleOf(Amounts, { showing })
  t.same(shown, { cents: 1234, units: 12.34, percent: 12, share: 0.62, big: 6234, below: -3702, hundredths: 12.34, zero: 0, given: 0, lines: [{ quantity: 1, amount: 1234 }, { quantity: 2, amount: 1 }] },
    'shown: 1234 or 12.34, else a smaller one, one past a bound, a negative; 0 where nothing else fits; the first of unique items only')
  t.ok(new Ajv({ strict: false }).validate(Amounts, shown), 'valid against every keyword of the schema')
  t.same(exampleOf(Amounts, { showing: new Set(['/cents']) }), { ...(plain as object), cents: 1234 }, 'one place: that number alone')
  t.end()
})
