// `verify` follows a renamed query parameter's or header's number or flag one way (issue 31, decision 0154): a
// boundary example's query string and headers have twins as its body has (each number moved to a neighbour, each
// flag flipped), compared as the text Fastify coerces, and a `0` arriving as another number is replayed with that
// number sent. A converter parsing, rounding or defaulting a number, or writing a renamed flag as a constant, is
// found; one converting units, inverting a flag or parsing text into the number it spells is not.
import { test } from 'tap'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { verify, type VerifyFindings } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type TextPart = 'querystring' | 'headers'

/**
 * `GET /things` reading a parameter renamed from `limit` to `pageSize` (in headers, `x-limit` to `page-size`) of
 * schema `type` (in the old version, `type` with the keywords `before`), its request converter writing `convert` of it.
 */
async function renamedParameter (t: Teardown, at: { type: TSchema, part?: TextPart, before?: Record<string, unknown> }, convert: (value: any) => unknown): Promise<VerifyFindings> {
  const part = at.part ?? 'querystring'
  const [from, to] = part === 'querystring' ? ['limit', 'pageSize'] : ['x-limit', 'page-size']
  const Parameters = Type.Object({ [to]: Type.Optional(at.type), cursor: Type.Optional(Type.String()) }, { $id: 'Parameters' })
  class LimitBecamePageSize extends VersionChange {
    description = 'limit became pageSize.'
    instructionsToMigrateToPreviousVersion = [schema(Parameters).field(to).had({ name: from, ...at.before })]

    @ConvertRequestToNextVersionFor('/things', ['GET'])
    up (request: RequestInfo) {
      const holder = (part === 'querystring' ? request.queryParams : request.headers) as Record<string, unknown>
      if (holder[from] !== undefined) holder[to] = convert(holder[from])
      delete holder[from]
    }
  }
  const app = await appWith(t, LimitBecamePageSize, (api) => {
    api.get('/things', { schema: { [part]: Parameters, response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
  })
  return await verify(app, { examples: 5 })
}

const Limit = Type.Integer({ minimum: 0, maximum: 100 })

test('one way, a renamed query parameter or header whose number or flag a converter makes one with its twin\'s is found, naming it, the route, version, change and converter', async (t) => {
  const lossy: Array<[string, { type: TSchema, part?: TextPart, before?: Record<string, unknown> }, (value: any) => unknown]> = [
    ['parseInt of a decimal', { type: Type.Number() }, (value: number) => parseInt(String(value))],
    ['Math.round', { type: Type.Number() }, (value: number) => Math.round(value)],
    ['parsed and written as text', { type: Type.Number() }, (value: number) => String(Math.floor(value))],
    ['a default for 0: || 20', { type: Limit }, (value: number) => value || 20],
    ['a default for 0: || 1', { type: Limit }, (value: number) => value || 1],
    ['a flag written as the text \'true\'', { type: Type.Boolean() }, () => 'true'],
    ['a flag written as true', { type: Type.Boolean() }, () => true],
    ['a header parsed', { type: Type.Number(), part: 'headers' }, (value: number) => parseInt(String(value))],
    ['a header\'s 0 defaulted', { type: Limit, part: 'headers' }, (value: number) => value || 25],
    ['a header\'s flag written as \'false\'', { type: Type.Boolean(), part: 'headers' }, () => 'false'],
    ['a header lower-cased', { type: Type.String(), part: 'headers' }, (value: string) => value.toLowerCase()],
    // HEAD takes either case; the old version's examples are upper-case.
    ['a patterned header lower-cased', { type: Type.String({ pattern: '^[A-Za-z]{2}-[0-9]+$' }), part: 'headers', before: { pattern: '^[A-Z]{2}-[0-9]+$' } }, (value: string) => value.toLowerCase()],
    ['a header cut', { type: Type.String(), part: 'headers' }, (value: string) => value.slice(0, 8)]
  ]
  for (const [name, at, convert] of lossy) {
    const where = at.part === 'headers' ? 'headers/x-limit' : 'querystring/limit'
    t.same(summary(await renamedParameter(t, at, convert)), [`GET /things 2000-01-01 request lost ${where} after LimitBecamePageSize (2001-01-01) by LimitBecamePageSize.up`], name)
  }
})

test('one way, a renamed query parameter or header converted without loss is no finding: units, an inverted flag, text parsed into the number it spells, a 0 HEAD cannot take', async (t) => {
  const correct: Array<[string, { type: TSchema, part?: TextPart, before?: Record<string, unknown> }, (value: any) => unknown]> = [
    ['carried', { type: Type.Number() }, (value) => value],
    ['in other units', { type: Type.Number() }, (value: number) => value * 2.5],
    ['Celsius to Fahrenheit (0 is 32)', { type: Type.Number() }, (value: number) => value * 1.8 + 32],
    ['a flag inverted', { type: Type.Boolean() }, (value: boolean) => !value],
    ['a flag written as the text it was', { type: Type.Boolean() }, (value: boolean) => String(value)],
    ['text parsed into the number it spells', { type: Type.Number() }, (value: number) => Number(String(value))],
    ['a 0 HEAD\'s minimum of 1 refuses, defaulted', { type: Type.Integer({ minimum: 1, maximum: 100 }), before: { minimum: 0 } }, (value: number) => value || 20],
    // Compared only with what the version's clients can send: 20 is past its maximum, so no two values they send arrive as one.
    ['a 0 defaulted to a size the version cannot send', { type: Limit, before: { maximum: 10 } }, (value: number) => value || 20],
    ['a page size HEAD caps, capped', { type: Type.Integer({ minimum: 0, maximum: 100 }), before: { maximum: 1000 } }, (value: number) => Math.min(value, 100)],
    ['a header in other units', { type: Type.Number(), part: 'headers' }, (value: number) => value * 1000],
    ['a header\'s flag inverted as text', { type: Type.Boolean(), part: 'headers' }, (value: boolean) => String(!value)]
  ]
  for (const [name, at, convert] of correct) t.same(summary(await renamedParameter(t, at, convert)), [], name)
})

test('a renamed query parameter\'s or header\'s value made one with another says which two values arrive as what, and how to fix it', async (t) => {
  const [rounded] = await renamedParameter(t, { type: Type.Number() }, (value: number) => Math.floor(value))
  t.match(rounded.message, /^the value at \/limit in 2000-01-01 does not reach HEAD: (-?[\d.]+) and (-?[\d.]+) both arrive as -?\d+$/)
  t.match(rounded.fix, /LimitBecamePageSize\.up makes two values one: .*round, rather than floor or cut/)
  t.match(rounded.example, { limit: rounded.value }, 'the example shown is the query string sent')
  const [defaulted] = await renamedParameter(t, { type: Limit }, (value: number) => value || 20)
  t.equal(defaulted.message, 'the value at /limit in 2000-01-01 does not reach HEAD: 0 and 20 both arrive as 20')
  t.match(defaulted.fix, /keep a 0 a 0, rather than \|\| a default/)
  const [flag] = await renamedParameter(t, { type: Type.Boolean(), part: 'headers' }, () => 'true')
  t.match(flag.message, /^the value at \/x-limit in 2000-01-01 does not reach HEAD: (true and false|false and true) both arrive as 'true'$/)
  t.match(flag.fix, /not a constant/)
  t.match(flag.example, { 'x-limit': flag.value })
})

test('property: a 0 defaulted to any other page size is found; any other linear conversion of it is not', async (t) => {
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 50 }), async (fallback, scale, offset) => {
    const defaulted = summary(await renamedParameter(t, { type: Limit }, (value: number) => value || fallback))
    const linear = summary(await renamedParameter(t, { type: Type.Number() }, (value: number) => value * scale + offset))
    return defaulted.length === 1 && defaulted[0].includes('lost querystring/limit') && linear.length === 0
  }), { numRuns: 12, seed: 154 })
})

test('through two renames, the default is blamed on the change writing it, for every version sending the 0; a list\'s numbers floored are found item by item', async (t) => {
  const Page = Type.Object({ pageSize: Type.Optional(Limit), ids: Type.Optional(Type.Array(Type.Number())) }, { $id: 'Page' })
  const query = (request: RequestInfo): Record<string, unknown> => request.queryParams as Record<string, unknown>
  class LimitBecameSize extends VersionChange {
    description = 'limit became size, codes became ids.'
    instructionsToMigrateToPreviousVersion = [schema(Page).formerField('size').had({ name: 'limit' }), schema(Page).field('ids').had({ name: 'codes' })]

    @ConvertRequestToNextVersionFor('/things', ['GET'])
    up (request: RequestInfo) {
      const { limit, codes, ...rest } = query(request) as { limit?: number, codes?: number[] }
      request.queryParams = { ...rest, ...(limit === undefined ? {} : { size: limit }), ...(codes === undefined ? {} : { ids: codes.map(Math.floor) }) }
    }
  }
  class SizeBecamePageSize extends VersionChange {
    description = 'size became pageSize.'
    instructionsToMigrateToPreviousVersion = [schema(Page).field('pageSize').had({ name: 'size' })]

    @ConvertRequestToNextVersionFor('/things', ['GET'])
    up (request: RequestInfo) {
      const { size, ...rest } = query(request) as { size?: number }
      request.queryParams = { ...rest, ...(size === undefined ? {} : { pageSize: size || 20 }) }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01', SizeBecamePageSize), new Version('2001-01-01', LimitBecameSize), new Version('2000-01-01')), async (api) => {
    api.get('/things', { schema: { querystring: Page, response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
  })
  await app.ready()
  const findings = await verify(app, { examples: 5 })
  t.same(summary(findings).sort(), [
    'GET /things 2000-01-01 request lost querystring/codes/* after LimitBecameSize (2001-01-01) by LimitBecameSize.up',
    'GET /things 2000-01-01 request lost querystring/limit after SizeBecamePageSize (2002-01-01) by SizeBecamePageSize.up',
    'GET /things 2001-01-01 request lost querystring/size after SizeBecamePageSize (2002-01-01) by SizeBecamePageSize.up'
  ])
  t.match(findings.find((finding) => finding.pointer === '/codes/*')?.message, /: (-?[\d.]+) and (-?[\d.]+) both arrive as -?\d+$/)
})
