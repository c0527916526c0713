// `verify` on converters that change a string's spaces or case (issue 31, decision 0278): `memo.trim()`, runs of
// spaces collapsed, `email.toLowerCase()`, a whitespace-only memo made `''`, `name.split(' ')[0]` on a name whose
// `maxLength` leaves room for two short words only. Each is found one way on a renamed field and on a round trip;
// converters that reformat on purpose (units, an enum) and ones that carry the strings whole stay clean.
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { appWith, converted, oneWay, renamed, renamedParameter, roundTrip, summary, type Convert } from '../helpers/verify-apps'
import { sentinelFor } from '../../lib/tools/boundary-strings'
import { BOUNDARIES } from '../../lib/tools/boundary-values'
import { generateExamples } from '../../lib/tools/example-generation'
import Ajv from 'ajv'
import fc from 'fast-check'
import { keptChange } from '../../lib/tools/renamed-values'
import { shown } from '../../lib/tools/value-comparison'
import addFormats from 'ajv-formats'

/** The converters of this suite: damaging ones, and ones that carry the value whole. */
const trimmed: Convert = (value: string) => value.trim()
const collapsed: Convert = (value: string) => value.replace(/\s+/g, ' ')
const folded: Convert = (value: string) => value.toLowerCase()
const blankMadeEmpty: Convert = (value: string) => value.trim() === '' ? '' : value
const firstWord: Convert = (value: string) => value.split(' ')[0]
const carried: Convert = (value) => value

const Email = Type.String({ format: 'email' })
const Short = Type.String({ maxLength: 20 })

test('one way, a renamed field whose converters change its spaces or case is found in requests and responses', async (t) => {
  const both = ['POST /things 2000-01-01 request lost body/old after OldBecameRenamed (2001-01-01) by OldBecameRenamed.up', 'GET /things 2000-01-01 response lost response 200/renamed after OldBecameRenamed (2001-01-01) by OldBecameRenamed.down']
  const lossy: Array<[string, TSchema, Convert]> = [
    ['memo.trim()', Type.String(), trimmed],
    ['name.replace(/\\s+/g, " ")', Type.String(), collapsed],
    ['email.toLowerCase()', Email, folded],
    ['name.split(" ")[0] with a maxLength of 20', Short, firstWord]
  ]
  for (const [name, type, convert] of lossy) t.same(await renamed(t, type, convert), both, name)
  // One way, '' for '   ' is what a name split at its first space leaves (the rest in another field): a round trip tells them apart.
  t.same(await renamed(t, Type.String(), blankMadeEmpty), [], 'a whitespace-only memo made \'\', one way')
  t.same(await renamed(t, Type.String(), blankMadeEmpty, roundTrip), ['POST /things 2000-01-01 response round trip response 200/old after OldBecameRenamed (2001-01-01) by OldBecameRenamed.up,OldBecameRenamed.down'], 'a whitespace-only memo made \'\', on a round trip')
  for (const [name, type] of [['a string', Type.String()], ['an e-mail', Email], ['a short name', Short]] as const) {
    t.same(await renamed(t, type, carried), [], `${name} carried whole`)
  }
})

test('on a round trip, a field not renamed whose request converter changes its spaces or case is found', async (t) => {
  const found = ['POST /things 2000-01-01 response round trip response 200/value after RefBecameReference (2001-01-01) by RefBecameReference.up,RefBecameReference.down']
  const lossy: Array<[string, TSchema, Convert]> = [
    ['memo.trim()', Type.String(), trimmed],
    ['name.replace(/\\s+/g, " ")', Type.String(), collapsed],
    ['email.toLowerCase()', Email, folded],
    ['a whitespace-only memo made \'\'', Type.String(), blankMadeEmpty]
  ]
  for (const [name, type, convert] of lossy) t.same(await converted(t, type, convert), found, name)
  // Its second word is lost one way (a field not renamed too), the blank name comes back '', and a name read is not sent back whole.
  t.same(await converted(t, Short, firstWord), [
    'POST /things 2000-01-01 request lost body/value after RefBecameReference (2001-01-01) by RefBecameReference.up',
    ...found,
    'POST /things 2000-01-01 request round trip body/value after RefBecameReference (2001-01-01) by RefBecameReference.up'
  ], 'name.split(" ")[0] with a maxLength of 20')
  for (const [name, type] of [['a string', Type.String()], ['an e-mail', Email], ['a short name', Short]] as const) {
    t.same(await converted(t, type, carried), [], `${name} carried whole`)
  }
})

test('a finding names the value sent and what arrived, the route, version, version change and converter', async (t) => {
  const texts = async (type: TSchema, convert: Convert): Promise<string[]> => {
    const Thing = Type.Object({ id: Type.String(), memo: type }, { $id: 'Thing' })
    class NoteBecameMemo extends VersionChange {
      description = 'note became memo.'
      instructionsToMigrateToPreviousVersion = [schema(Thing).field('memo').had({ name: 'note' })]

      @ConvertRequestToNextVersionFor(Thing)
      up (request: RequestInfo) {
        request.body.memo = convert(request.body.note)
        delete request.body.note
      }
    }
    const app = await appWith(t, NoteBecameMemo, (api) => {
      api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    })
    return (await verify(app, { examples: 1 })).map((finding) => finding.text)
  }
  const [trim, email, collapse] = [await texts(Type.String(), trimmed), await texts(Email, folded), await texts(Type.String(), collapsed)]
  t.match(trim, [/^POST \/things \(2000-01-01\): request body\/note: the value at \/note in 2000-01-01 does not reach HEAD: ' zq\w+ {2}Łódź 🙂zq\w+ ' arrives as 'zq\w+ {2}Łódź 🙂zq\w+', its spaces changed; first wrong after NoteBecameMemo \(2001-01-01\), converters NoteBecameMemo\.up\. Make the converters carry the whole value/])
  t.equal(trim.length, 1)
  t.match(email, [/: 'ZQ\w+@example\.com' arrives as 'zq\w+@example\.com', its case changed; first wrong after NoteBecameMemo/])
  t.match(collapse, [/: ' zq\w+ {2}Łódź 🙂zq\w+ ' arrives as ' zq\w+ Łódź 🙂zq\w+ ', its spaces changed; /])
})

test('converters that split a name at a space and join it again, convert units or map an enum stay clean with padded and blank strings', async (t) => {
  const Customer = Type.Object({
    givenName: Type.String(),
    familyName: Type.Optional(Type.String()),
    weightKg: Type.Number(),
    status: Type.Union([Type.Literal('active'), Type.Literal('closed')])
  }, { $id: 'Customer' })
  for (const at of ['first', 'last'] as const) {
    class SplitName extends VersionChange {
      description = `name is givenName and familyName, split at the ${at} space; weight in kilograms; status renamed.`
      instructionsToMigrateToPreviousVersion = [
        schema(Customer).field('givenName').had({ name: 'name' }),
        schema(Customer).field('familyName').didntExist,
        schema(Customer).field('weightKg').had({ name: 'weightLb' }),
        schema(Customer).field('status').had({ type: Type.Union([Type.Literal('open'), Type.Literal('closed')]) })
      ]

      @ConvertRequestToNextVersionFor(Customer)
      up (request: RequestInfo) {
        const { name, weightLb, status, ...rest } = request.body as { name: string, weightLb: number, status: string }
        const space = at === 'first' ? name.indexOf(' ') : name.lastIndexOf(' ')
        const parts = space === -1 ? { givenName: name } : { givenName: name.slice(0, space), familyName: name.slice(space + 1) }
        request.body = { ...rest, ...parts, weightKg: weightLb * 0.45359237, status: status === 'open' ? 'active' : status }
      }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo) {
        const { givenName, familyName, weightKg, status, ...rest } = response.body as { givenName: string, familyName?: string, weightKg: number, status: string }
        response.body = { ...rest, name: familyName === undefined ? givenName : `${givenName} ${familyName}`, weightLb: weightKg / 0.45359237, status: status === 'active' ? 'open' : status }
      }
    }
    // One way: a given name holding a space, joined and split again, is a trip back's finding (verify-lossy-converters).
    const app = await appWith(t, SplitName, oneWay(Customer))
    t.same(summary(await verify(app, { examples: 20 })), [], `split at the ${at} space`)
  }
})

test('one way, a field not renamed may arrive trimmed or in another case (decision 0278); a renamed query parameter may not, a header is not sent padded', async (t) => {
  t.same(await converted(t, Type.String(), trimmed, oneWay), [], 'memo.trim() on a field not renamed, no round trip')
  t.same(await converted(t, Email, folded, oneWay), [], 'email.toLowerCase() on a field not renamed, no round trip')
  for (const [part, name, found] of [['querystring', 'search', true], ['headers', 'x-search', false]] as const) {
    t.same(await renamedParameter(t, part, name, Type.String(), (old) => old.trim()), found ? [`GET /things 2000-01-01 request lost ${part}/old-${name} after SearchRenamed (2001-01-01) by SearchRenamed.up`] : [], part)
  }
})

test('a padded e-mail the application\'s own format refuses is written in lower case; the boundary strings fit maxLength and minLength', async (t) => {
  const email = { type: 'string', format: 'email' }
  t.equal(sentinelFor(email, 1, 'padded'), 'ZQ000001@example.com')
  t.equal(sentinelFor(email, 1, 'padded', () => /^[a-z0-9.]+@[a-z0-9.]+$/), 'zq000001@example.com', 'a format in lower case only')
  t.equal(sentinelFor({ ...email, pattern: '^[a-z0-9]+@' }, 1, 'padded'), 'zq000001@example.com', 'a pattern in lower case only')
  t.equal(sentinelFor({ type: 'string' }, 1, 'padded'), ' zq000001  Łódź 🙂zq000001 ')
  t.equal(sentinelFor({ type: 'string', maxLength: 20 }, 1, 'padded'), ' zq000001  q000001 ')
  t.equal(sentinelFor({ type: 'string', maxLength: 12 }, 1, 'padded'), 'zq000001', 'no room for a second word')
  t.equal(sentinelFor({ type: 'string', minLength: 30 }, 1, 'padded'), ' zq000001  Łódź 🙂zq000001qqqq ', 'padded to minLength before its last space')
  t.equal(sentinelFor({ type: 'string', maxLength: 20 }, 1, 'spaces'), 'zq000001 q000001')
  t.equal(sentinelFor({ type: 'string' }, 1, 'blank'), '   ')
  t.equal(sentinelFor({ type: 'string', minLength: 5 }, 1, 'blank'), '     ')
  t.equal(sentinelFor({ type: 'string', maxLength: 1 }, 1, 'blank'), ' ')
  t.equal(sentinelFor({ type: 'string', pattern: '^a+$' }, 1, 'padded'), undefined, 'a patterned string has no sentinel')
})

test('the padded and blank examples are the same whatever the seed, and validate against their schema', async (t) => {
  const Form = Type.Object({ memo: Type.String(), email: Email, tags: Type.Array(Type.String(), { uniqueItems: true }), count: Type.Integer() })
  const generated = (seed: number) => generateExamples(Form, { resolveRef: () => undefined, count: 3, seed })
  const [first, other] = [generated(1), generated(2)]
  t.same(first.slice(0, BOUNDARIES.length).map((example) => example.value), other.slice(0, BOUNDARIES.length).map((example) => example.value), 'the boundary examples do not depend on the seed')
  const padded = first[BOUNDARIES.indexOf('padded')]
  const blank = first[BOUNDARIES.indexOf('blank')]
  t.match(padded.value, { memo: /^ zq\w+ {2}Łódź 🙂zq\w+ $/, email: /^ZQ\w+@example\.com$/, tags: [/^ zq/] })
  t.same(blank.value, { memo: '   ', email: 'zq000002@example.com', tags: ['   '], count: 101 })
  t.same([...blank.sentinels.keys()], ['zq000002@example.com'], 'a blank string is no sentinel')
  t.equal(padded.twin, undefined, 'no twin: the numbers are those of spaces')
  const ajv = new Ajv({ strict: false })
  addFormats(ajv)
  const check = ajv.compile(Form)
  for (const example of [padded, blank]) t.ok(check(example.value), JSON.stringify(check.errors))
})

test('property: a renamed string split at any of its spaces, or joined with an empty part, is no finding; trimmed or folded it is', async (t) => {
  // Words of letters (some beyond ASCII, some upper case) and runs of spaces, at the ends too.
  const text = fc.array(fc.oneof(fc.constantFrom('a', 'Ł', 'ó', 'Z', '🙂'), fc.constantFrom(' ', '  ')), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''))
  fc.assert(fc.property(text, (value) => {
    for (let at = 0; at < value.length; at++) {
      if (value[at] !== ' ') continue
      if (keptChange('case', value, value.slice(0, at), shown) !== undefined) return false
      if (keptChange('case', value, value.slice(at + 1), shown) !== undefined) return false
    }
    if (keptChange('case', value, `${value} `, shown) !== undefined || keptChange('case', value, value, shown) !== undefined) return false
    const trimmed = keptChange('case', value, value.trim(), shown)
    const padded = value.startsWith(' ') && value.endsWith(' ') && value.trim() !== ''
    if (padded && trimmed === undefined) return false
    const folded = value.toLowerCase()
    return folded === value || keptChange('case', value, folded, shown) === `arrives as ${shown(folded)}, its case changed`
  }), { seed: 1, numRuns: 500 })
  t.pass('500 strings')
})
