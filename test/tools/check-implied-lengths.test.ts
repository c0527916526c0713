// `check` judges a length bound by the strings each side accepts (issue 31, decision 0312): a request's `minLength`
// added where its `format: 'uuid'` was dropped refuses no string an old client could send (every UUID is 36 characters
// or more), and no more does one a pattern or the former bounds imply; a bound some accepted string breaks stays a
// break, on requests and on responses.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import { checkDocuments, exportDocuments } from '../../tools'
import { fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { regexLengths } from '../../lib/tools/string-lengths'
import { scratch } from '../helpers/cli'
import type { Teardown } from '../helpers/apps'

/** An app whose `GET /customers/:customerId` takes `id` and answers `{ id: answered }`, in two versions. */
async function app (t: Teardown, id: TSchema, answered: TSchema): Promise<FastifyInstance> {
  const built = Fastify()
  await built.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await built.register(versioned(async (routes) => {
    routes.get('/customers/:customerId', {
      schema: { params: Type.Object({ customerId: id }), response: { 200: Type.Object({ id: answered }) } }
    }, async () => ({ id: '' }))
  }))
  await built.ready()
  t.teardown(() => built.close())
  return built
}

test('a length bound every string the other side accepts meets is a note; one some string breaks is a break', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await app(t, Type.String({ format: 'uuid' }), Type.String({ format: 'uuid' })), dir)
  const texts = async (id: TSchema, answered: TSchema): Promise<string[]> => {
    const { breaks, notes } = await checkDocuments(await app(t, id, answered), dir)
    return [...breaks.map((found) => `break: ${found.text}`), ...notes.map((found) => `note: ${found.text}`)]
      .filter((text) => text.startsWith('break') || /Length/.test(text)).map((text) => text.replace(/^(\w+: )2001-01-01/, '$1*').replace(/^(\w+: )2000-01-01/, '$1*'))
  }
  const unique = (list: string[]): string[] => [...new Set(list)]
  t.same(unique(await texts(Type.String({ minLength: 1 }), Type.String({ format: 'uuid' }))), [
    'note: * GET /customers/{customerId}: path parameter customerId /: minLength (none) → 1 (what it took, it takes)'
  ], 'minLength 1 where a UUID was taken')
  t.same(unique(await texts(Type.String({ minLength: 36, maxLength: 45 }), Type.String({ format: 'uuid' }))), [
    'note: * GET /customers/{customerId}: path parameter customerId /: minLength (none) → 36 (what it took, it takes)',
    'note: * GET /customers/{customerId}: path parameter customerId /: maxLength (none) → 45 (what it took, it takes)'
  ], 'a UUID\'s own lengths, with urn:uuid: before it')
  t.same(unique(await texts(Type.String({ maxLength: 36 }), Type.String({ format: 'uuid' }))), [
    'break: * GET /customers/{customerId}: path parameter customerId /: maxLength (none) → 36'
  ], 'urn:uuid: and a UUID is 45 characters: a break')
  t.same(unique(await texts(Type.String({ minLength: 37 }), Type.String({ format: 'uuid' }))), [
    'break: * GET /customers/{customerId}: path parameter customerId /: minLength (none) → 37'
  ], 'longer than a bare UUID: a break')
  t.same(unique(await texts(Type.String({ format: 'uuid' }), Type.String({ minLength: 1 }))), [
    'break: * GET /customers/{customerId}: response 200 /id: format \'uuid\' → (none)',
    'note: * GET /customers/{customerId}: response 200 /id: minLength (none) → 1'
  ], 'a response that no longer promises a UUID breaks for its format; the bound it gained is no break of its own')
})

test('the lengths of a regular expression: its shortest match, and its longest when anchored at both ends', async (t) => {
  t.same(regexLengths('^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$', 'i'), [36, 45])
  t.same(regexLengths('^cus_', 'u'), [4, Infinity])
  t.same(regexLengths('^[A-Z]{3}-\\d+$', 'u'), [5, Infinity])
  t.same(regexLengths('^a|bc$', 'u'), [1, Infinity], 'a branch anchored at one end only')
  t.same(regexLengths('^(?:ab|c)?$', 'u'), [0, 2])
  t.same(regexLengths('^\\d{2,4}$', 'm'), [2, Infinity], 'multi-line: $ is no end of the string')
  t.same(regexLengths('^.{3}$', ''), [0, 3], 'outside u mode a dot may be half of a code point')
  t.same(regexLengths('^.{3}$', 'u'), [3, 3])
  t.equal(regexLengths('^(?=a)abc$', 'u'), undefined, 'a lookahead')
  t.equal(regexLengths('^(a)\\1$', 'u'), undefined, 'a back-reference')
  t.equal(regexLengths('(?:^a)b', 'u'), undefined, 'an anchor inside a group')
})

test('property: every string a pattern of simple pieces matches has a length within the lengths it implies', async (t) => {
  const piece = fc.constantFrom('a', '[0-9]', '\\d', '.', '[^x]', '(?:ab|c)', 'é', '\\u00e9', '[a-f]')
  const quantifier = fc.constantFrom('', '?', '*', '+', '{2}', '{1,3}', '{0,}')
  const pattern = fc.tuple(fc.boolean(), fc.array(fc.tuple(piece, quantifier), { minLength: 1, maxLength: 5 }), fc.boolean())
    .map(([start, pieces, end]) => `${start ? '^' : ''}${pieces.map(([p, q]) => p + q).join('')}${end ? '$' : ''}`)
  const matched = fc.tuple(pattern, fc.constantFrom('', 'u')).chain(([source, flags]) =>
    fc.tuple(fc.constant(source), fc.constant(flags), fc.stringMatching(new RegExp(source, flags))))
  fc.assert(fc.property(matched, ([source, flags, text]) => {
    const lengths = regexLengths(source, flags)
    if (lengths === undefined || !new RegExp(source, flags).test(text)) return false
    const length = [...text].length
    return length >= lengths[0] && length <= lengths[1]
  }), { numRuns: 2000 })
  t.pass('within')
})
