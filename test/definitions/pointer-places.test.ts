// declaresPlace: whether a schema declares the place a redaction pointer names (lib/values/pointer-places.ts), read
// as the walks over data read schemas: fields, items, tuples, unions, intersections, $refs, open objects.
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import { declaresPlace } from '../../lib/values/pointer-places'
import { pointerSegments } from '../../lib/values/redaction'

const Card = Type.Object({ number: Type.String(), holder: Type.String() }, { $id: 'Card' })
const byId = new Map<string, TSchema>([['Card', Card]])
const resolveRef = (ref: string): TSchema | undefined => byId.get(ref.replace(/#$/, ''))

function declares (schema: unknown, pointer: string): boolean {
  return declaresPlace(schema, pointerSegments(pointer), resolveRef)
}

test('fields and items: a field the schema names, any item of an array, a tuple position; not a field it does not name', async (t) => {
  const Payment = Type.Object({ card: Card, lines: Type.Array(Type.Object({ memo: Type.String() })), pair: Type.Tuple([Type.String(), Card]) })
  for (const pointer of ['/card', '/card/number', '/lines/*/memo', '/lines/3/memo', '/pair/1/number', '/pair/*/holder', '/*/number']) {
    t.ok(declares(Payment, pointer), pointer)
  }
  for (const pointer of ['/Card', '/card/numbr', '/lines/memo', '/lines/-1/memo', '/pair/0/number', '/card/number/more', '/note']) {
    t.notOk(declares(Payment, pointer), pointer)
  }
})

test('unions, intersections and $refs are followed; a $ref it cannot resolve may hold anything', async (t) => {
  const Method = Type.Union([Type.Object({ type: Type.Literal('card'), card: Type.Ref('Card') }), Type.Object({ type: Type.Literal('bank'), iban: Type.String() })])
  t.ok(declares(Method, '/card/number'), 'through a union member and a $ref')
  t.ok(declares(Method, '/iban'), 'the other member')
  t.notOk(declares(Method, '/card/iban'))
  t.ok(declares(Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Card })]), '/b/holder'), 'an allOf member')
  t.ok(declares({ $ref: 'Unknown#' }, '/anything'), 'an unknown $ref')
})

test('open places: a schema without keywords, an object or array that lists nothing, additionalProperties and patternProperties', async (t) => {
  t.ok(declares({}, '/anything/below'), '{}')
  t.ok(declares(Type.Unknown(), '/a'), 'Type.Unknown()')
  t.ok(declares({ type: 'object' }, '/a/b'), 'an object listing no fields')
  t.ok(declares({ type: 'array' }, '/0/a'), 'an array listing no items')
  t.ok(declares(Type.Record(Type.String(), Card), '/any-key/number'), 'a record: patternProperties')
  t.notOk(declares(Type.Record(Type.String(), Card), '/any-key/iban'))
  t.ok(declares(Type.Object({}, { additionalProperties: Card }), '/x/holder'), 'additionalProperties as a schema')
  t.notOk(declares(Type.Object({ a: Type.String() }), '/b'), 'a field merely not forbidden is not declared')
  t.notOk(declares(Type.String(), '/a'), 'inside a string')
})
