// `verify` on converters that fold the case of a string whose `pattern` takes both cases (issue 31): a code
// `^[A-Za-z]{2}-[0-9]+$` made `code.toLowerCase()` or `code.toUpperCase()` on a renamed field, in a body, a query
// string and a header, one way and on a round trip. A pattern of one case only, and converters carrying the value
// whole, stay clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import Ajv from 'ajv'
import fc from 'fast-check'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import type { Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'
import { BOUNDARIES, patternedText } from '../../lib/tools/boundary-values'
import { generateExamples } from '../../lib/tools/example-generation'

type Convert = (value: string) => string

const lower: Convert = (value) => value.toLowerCase()
const upper: Convert = (value) => value.toUpperCase()
const carried: Convert = (value) => value

const Both = Type.String({ pattern: '^[A-Za-z]{2}-[0-9]+$' })
const Word = Type.String({ pattern: '^[a-zA-Z0-9_]+$' })
const LowerOnly = Type.String({ pattern: '^[a-z]{2}-[0-9]+$' })
const UpperOnly = Type.String({ pattern: '^[A-Z]{2}-[0-9]+$' })

/** A body field renamed from `old` to `code`, its value converted by `convert` both ways, on a route one way (`POST` answering an id, `GET` answering it) or round-tripping. */
async function renamed (t: Teardown, type: TSchema, convert: Convert, trip: boolean): Promise<string[]> {
  const Thing = Type.Object({ id: Type.String(), code: type }, { $id: 'Thing' })
  class OldBecameCode extends VersionChange {
    description = 'old became code.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('code').had({ name: 'old' })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.code = convert(request.body.old)
      delete request.body.old
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.old = convert(response.body.code)
      delete response.body.code
    }
  }
  const routes = trip
    ? (api: FastifyInstance) => { api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body) }
    : (api: FastifyInstance) => {
        api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
        api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
      }
  return summary(await verify(await appWith(t, OldBecameCode, routes), { examples: 5 }))
}

/** A query parameter or header renamed from `old-<name>` to `<name>`, its value converted by `convert`; a free string beside it. */
async function renamedParameter (t: Teardown, part: 'querystring' | 'headers', type: TSchema, convert: Convert): Promise<string[]> {
  const name = part === 'querystring' ? 'code' : 'x-code'
  const Search = Type.Object({ [name]: type, memo: Type.Optional(Type.String()) }, { $id: `Search${part}` })
  class CodeRenamed extends VersionChange {
    description = 'the code parameter was renamed.'
    instructionsToMigrateToPreviousVersion = [schema(Search).field(name).had({ name: `old-${name}` })]

    @ConvertRequestToNextVersionFor('/things', ['GET'])
    up (request: RequestInfo) {
      const carrier = request[part === 'querystring' ? 'queryParams' : 'headers'] as Record<string, string | undefined>
      const old = carrier[`old-${name}`]
      if (old !== undefined) carrier[name] = convert(old)
      delete carrier[`old-${name}`]
    }
  }
  const app = await appWith(t, CodeRenamed, (api) => {
    api.get('/things', { schema: { [part]: Search, response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
  })
  return summary(await verify(app, { examples: 5 }))
}

test('a renamed body field of a pattern taking both cases, its case folded, is found one way and on a round trip', async (t) => {
  const oneWay = ['POST /things 2000-01-01 request lost body/old after OldBecameCode (2001-01-01) by OldBecameCode.up', 'GET /things 2000-01-01 response lost response 200/code after OldBecameCode (2001-01-01) by OldBecameCode.down']
  for (const [name, type] of [['^[A-Za-z]{2}-[0-9]+$', Both], ['^[a-zA-Z0-9_]+$', Word]] as const) {
    for (const [how, convert] of [['toLowerCase()', lower], ['toUpperCase()', upper]] as const) {
      t.same(await renamed(t, type, convert, false), oneWay, `${name}, ${how}, one way`)
      t.not((await renamed(t, type, convert, true)).length, 0, `${name}, ${how}, on a round trip`)
    }
    t.same(await renamed(t, type, carried, false), [], `${name} carried whole, one way`)
    t.same(await renamed(t, type, carried, true), [], `${name} carried whole, on a round trip`)
  }
})

test('a pattern of one case only is untouched: folding to that case changes nothing', async (t) => {
  t.same(await renamed(t, LowerOnly, lower, false), [], 'lower case only, toLowerCase()')
  t.same(await renamed(t, LowerOnly, lower, true), [], 'lower case only, toLowerCase(), on a round trip')
  t.same(await renamed(t, UpperOnly, upper, false), [], 'upper case only, toUpperCase()')
  t.same(await renamed(t, UpperOnly, upper, true), [], 'upper case only, toUpperCase(), on a round trip')
})

test('a renamed query parameter or header of a pattern taking both cases, its case folded, is found', async (t) => {
  for (const part of ['querystring', 'headers'] as const) {
    const name = part === 'querystring' ? 'code' : 'x-code'
    const lost = [`GET /things 2000-01-01 request lost ${part}/old-${name} after CodeRenamed (2001-01-01) by CodeRenamed.up`]
    t.same(await renamedParameter(t, part, Both, lower), lost, `${part}, toLowerCase()`)
    t.same(await renamedParameter(t, part, Both, upper), lost, `${part}, toUpperCase()`)
    t.same(await renamedParameter(t, part, Both, carried), [], `${part}, carried whole`)
    t.same(await renamedParameter(t, part, LowerOnly, lower), [], `${part}, lower case only, toLowerCase()`)
  }
})

test('patternedText: a pattern taking both cases gets a text of both cases; one of one case only keeps its example', async (t) => {
  for (const boundary of ['spaces', 'large', 'padded'] as const) {
    t.equal(patternedText({ type: 'string', pattern: '^[A-Za-z]{2}-[0-9]+$' }, boundary, 'dd-1'), 'dD-1', boundary)
    t.equal(patternedText({ type: 'string', pattern: '^[A-Za-z]{2}-[0-9]+$' }, boundary, 'DD-1'), 'Dd-1', `${boundary}, from upper case`)
  }
  t.equal(patternedText({ type: 'string', pattern: '^[a-z]{2}-[0-9]+$' }, 'spaces', 'dd-1'), undefined, 'lower case only')
  t.equal(patternedText({ type: 'string', pattern: '^[A-Z][a-z]+$' }, 'spaces', 'Ab'), undefined, 'a case fixed at each place')
  t.equal(patternedText({ type: 'string', pattern: '^[A-Fa-f]{4}$' }, 'spaces', 'aBcD'), undefined, 'an example of both cases already')
  t.equal(patternedText({ type: 'string', pattern: '^[a-zA-Z0-9]+$' }, 'spaces', 'example'), '0101', 'digits first, as before')
  t.equal(patternedText({ type: 'string', pattern: '^[a-zA-Z0-9]+$' }, 'padded', 'example'), 'examplE')
  t.equal(patternedText({ type: 'string', pattern: '^[A-Za-z]+$' }, 'empty', 'ab'), 'b', 'empty: shortened as before')
  t.equal(patternedText({ type: 'string', pattern: '^[A-Za-zß]+$', maxLength: 1 }, 'padded', 'ß'), 'A', 'no letter whose other case is one letter: one put in')
  t.equal(patternedText({ type: 'string', pattern: '^[a-fA-F0-9]+$' }, 'padded', '66'), 'aA', 'a hex id of digits: upper case last at padded')
  t.equal(patternedText({ type: 'string', pattern: '^[a-fA-F0-9]+$' }, 'null', '66'), 'Aa', 'lower case last at another boundary')
  t.equal(patternedText({ type: 'string', pattern: '^[a-fA-F0-9]+$' }, 'padded', '6'), 'A', 'one place: upper case at padded')
  t.equal(patternedText({ type: 'string', pattern: '^[a-fA-F0-9]+$' }, 'negative', '6'), 'A', 'one place: upper case at negative, which headers are sent')
  t.equal(patternedText({ type: 'string', pattern: '^[a-fA-F0-9]+$' }, 'null', '6'), 'a', 'one place: lower case at another boundary')
  t.equal(patternedText({ type: 'string', pattern: '^[0-9]+-[a-z]$' }, 'padded', '6-a'), undefined, 'no place takes a letter in both cases')
})

test('property: the examples of a pattern taking both cases change under either fold, match it under Ajv and do not depend on the seed', async (t) => {
  const ajv = new Ajv({ strict: false })
  // A class of both ranges (in either order, with digits or `_` or not), repeated, with a fixed prefix or suffix.
  const pattern = fc.record({
    ranges: fc.constantFrom('A-Za-z', 'a-zA-Z', 'a-zA-Z0-9', 'A-Za-z0-9_', 'a-fA-F0-9'),
    count: fc.constantFrom('+', '{2}', '{3,8}', '{1}'),
    prefix: fc.constantFrom('', 'id_', '[0-9]'),
    suffix: fc.constantFrom('', '-[0-9]+', '\\.[a-z]{2}')
  }).map(({ ranges, count, prefix, suffix }) => `^${prefix}[${ranges}]${count}${suffix}$`)
  fc.assert(fc.property(pattern, fc.integer({ min: 1, max: 1000 }), (source, seed) => {
    const Form = Type.Object({ code: Type.String({ pattern: source }), codes: Type.Array(Type.String({ pattern: source })) })
    const made = (from: number) => generateExamples(Form, { resolveRef: () => undefined, count: 2, seed: from }).map((example) => example.value)
    const [first, other] = [made(seed), made(seed + 1)]
    // No free string, no `lines` example: one boundary example fewer.
    const boundaries = BOUNDARIES.length - 1
    if (JSON.stringify(first.slice(0, boundaries)) !== JSON.stringify(other.slice(0, boundaries))) return false
    const check = ajv.compile(Form)
    if (!first.every((value) => check(value))) return false
    // Some code changes under each fold (one of a single letter, `'0a'`, is sent as `'0a'` and `'0A'`).
    const codes = first.flatMap((value) => [(value as { code: string }).code, ...(value as { codes: string[] }).codes])
    return codes.some((code) => code !== code.toLowerCase()) && codes.some((code) => code !== code.toUpperCase())
  }), { seed: 1, numRuns: 60 })
  t.pass('60 patterns')
})

test('a renamed code whose pattern one version narrows to one case, folded to it by the converters, is no finding one way', async (t) => {
  for (const [headType, oldPattern, up, down, name] of [
    [LowerOnly, '^[A-Za-z]{2}-[0-9]+$', lower, carried, 'HEAD lower case only, the old version both: folded on the way up'],
    [Both, '^[a-z]{2}-[0-9]+$', carried, lower, 'HEAD both cases, the old version lower case only: folded on the way down']
  ] as const) {
    const Thing = Type.Object({ id: Type.String(), code: headType }, { $id: 'Thing' })
    class OldBecameCode extends VersionChange {
      description = 'old became code, its pattern changed.'
      instructionsToMigrateToPreviousVersion = [schema(Thing).field('code').had({ name: 'old', pattern: oldPattern })]

      @ConvertRequestToNextVersionFor(Thing)
      up (request: RequestInfo) {
        request.body.code = up(request.body.old)
        delete request.body.old
      }

      @ConvertResponseToPreviousVersionFor(Thing)
      down (response: ResponseInfo) {
        response.body.old = down(response.body.code)
        delete response.body.code
      }
    }
    for (const trip of [false, true]) {
      const routes = trip
        ? (api: FastifyInstance) => { api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body) }
        : (api: FastifyInstance) => {
            api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
            api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
          }
      // On a round trip, the old client sending 'dD-1' reads 'dd-1' back: what it sent does not come back (decision 0278).
      const back = trip && up === lower ? ['POST /things 2000-01-01 response round trip response 200/old after OldBecameCode (2001-01-01) by OldBecameCode.up,OldBecameCode.down'] : []
      t.same(summary(await verify(await appWith(t, OldBecameCode, routes), { examples: 5 })), back, `${name}${trip ? ', on a round trip' : ''}`)
    }
  }
})

test('a renamed header or query parameter with room for one letter, beside a free string, is sent in both cases: either fold is found', async (t) => {
  // A hex digit whose example is a digit: one place, which takes a letter in both cases; the free string beside it keeps
  // the padded example (whose letter was upper case) from headers.
  const HexDigit = Type.String({ pattern: '^[a-fA-F0-9]$', examples: ['6'] })
  for (const part of ['querystring', 'headers'] as const) {
    const name = part === 'querystring' ? 'code' : 'x-code'
    const lost = [`GET /things 2000-01-01 request lost ${part}/old-${name} after CodeRenamed (2001-01-01) by CodeRenamed.up`]
    t.same(await renamedParameter(t, part, HexDigit, lower), lost, `${part}, toLowerCase()`)
    t.same(await renamedParameter(t, part, HexDigit, upper), lost, `${part}, toUpperCase()`)
    t.same(await renamedParameter(t, part, HexDigit, carried), [], `${part}, carried whole`)
  }
})
