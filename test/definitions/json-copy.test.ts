import { test } from 'tap'
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { copyJson } from '../../lib/values/json-copy'

/**
 * Converters get a JSON copy of the body: exactly what `JSON.parse(JSON.stringify(value))` gives (`toJSON`
 * applied, `undefined` left out, `__proto__` kept as data), never the application's own object.
 */

function throughText (value: unknown): { ok: true, value: unknown } | { ok: false } {
  try {
    const text = JSON.stringify(value)
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

class Point {
  constructor (readonly x: number, readonly y: number) {}
  get sum (): number { return this.x + this.y }
}

test('property: the copy equals JSON.parse(JSON.stringify(value)) for any value JSON can write', (t) => {
  const anything = fc.anything({
    maxDepth: 5,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withSparseArray: true,
    withNullPrototype: true,
    withObjectString: true,
    withBigInt: true
  })
  let checked = 0
  fc.assert(fc.property(anything, (value) => {
    const copy = copyJson(value)
    // Primitives are the copy of themselves (JSON would also write NaN as null, but a body is never one).
    if (typeof value !== 'object' || value === null) return Object.is(copy, value)
    const expected = throughText(value)
    if (!expected.ok) return copy === value
    checked++
    return isDeepStrictEqual(copy, expected.value)
  }), { numRuns: 3000 })
  t.ok(checked > 1000, `most generated values could be written as JSON (${checked})`)
  t.end()
})

test('the copy is fresh: changing it never changes the application\'s object', (t) => {
  const stored = { user: { name: 'Ada', tags: ['a'] } }
  const copy = copyJson(stored) as typeof stored
  copy.user.name = 'changed'
  copy.user.tags.push('b')
  t.same(stored, { user: { name: 'Ada', tags: ['a'] } })
  t.end()
})

test('JSON\'s rules: toJSON with its key, left-out values, non-finite numbers, class instances, __proto__ as data', (t) => {
  const keys: string[] = []
  const withToJson = { toJSON (key: string) { keys.push(key); return { wrapped: key } } }
  const value = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
  Object.assign(value, {
    at: new Date(0),
    nested: { inner: withToJson },
    list: [undefined, () => 1, Symbol('s'), Number.NaN, -Infinity, withToJson],
    point: new Point(1, 2),
    skipped: undefined
  })
  const copy = copyJson(value) as Record<string, unknown>
  t.same(Object.keys(copy), ['__proto__', 'at', 'nested', 'list', 'point'])
  t.equal(Object.getPrototypeOf(copy), Object.prototype, 'a __proto__ key never becomes the prototype')
  t.same(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true })
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal(copy.at, '1970-01-01T00:00:00.000Z')
  t.same(copy.nested, { inner: { wrapped: 'inner' } })
  t.same(copy.list, [null, null, null, null, null, { wrapped: '5' }])
  t.same(copy.point, { x: 1, y: 2 })
  t.same(keys, ['inner', '5'], 'toJSON is called once per value, with its key')
  t.equal(copyJson(new Date(0)), '1970-01-01T00:00:00.000Z', 'a top-level toJSON is applied too')
  t.end()
})

test('values JSON cannot write are kept as they are; deep data and boxed primitives are copied as JSON does', (t) => {
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic.self = cyclic
  t.equal(copyJson(cyclic), cyclic, 'a cycle is kept for the serializer to decide')
  const big = { n: 1n }
  t.equal(copyJson(big), big, 'a BigInt is kept for the serializer to decide')
  let deep: Record<string, unknown> = { leaf: true }
  for (let level = 0; level < 3000; level++) deep = { child: deep }
  const deepCopy = copyJson(deep)
  t.not(deepCopy, deep)
  t.equal(JSON.stringify(deepCopy), JSON.stringify(deep), 'data thousands of levels deep is copied')
  // eslint-disable-next-line no-new-wrappers
  t.same(copyJson({ n: new Number(3), s: new String('x'), b: new Boolean(false) }), { n: 3, s: 'x', b: false })
  const throwing = { get broken (): never { throw new Error('getter') } }
  t.equal(copyJson(throwing), throwing, 'a getter that throws: kept as it is, as before')
  t.end()
})
