// `verify` on converters that change a string's spaces or case (issue 31, decision 0278): `memo.trim()`, runs of
// spaces collapsed, `email.toLowerCase()`, a whitespace-only memo made `''`, `name.split(' ')[0]` on a name whose
// `maxLength` leaves room for two short words only. Each is found one way on a renamed field and on a round trip;
// converters that reformat on purpose (units, an enum) and ones that carry the strings whole stay clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import type { Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Convert = (value: any) => unknown

/** The converters of this suite: damaging ones, and ones that carry the value whole. */
const trimmed: Convert = (value: string) => value.trim()
const collapsed: Convert = (value: string) => value.replace(/\s+/g, ' ')
const folded: Convert = (value: string) => value.toLowerCase()
const blankMadeEmpty: Convert = (value: string) => value.trim() === '' ? '' : value
const firstWord: Convert = (value: string) => value.split(' ')[0]
const carried: Convert = (value) => value

/** `POST /things` taking `Thing` and answering `{ id }`, `GET /things` answering `Thing`: one way only, no round trip. */
function oneWay (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
  }
}

/** `POST /things` taking `Thing` and answering it: a round trip. */
function roundTrip (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  }
}

/** A field renamed from `old` to `renamed` (its type unchanged), its value converted by `convert` both ways. */
async function renamed (t: Teardown, type: TSchema, convert: Convert, routes = oneWay): Promise<string[]> {
  const Thing = Type.Object({ id: Type.String(), renamed: type }, { $id: 'Thing' })
  class OldBecameRenamed extends VersionChange {
    description = 'old became renamed.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('renamed').had({ name: 'old' })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.renamed = convert(request.body.old)
      delete request.body.old
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.old = convert(response.body.renamed)
      delete response.body.renamed
    }
  }
  return summary(await verify(await appWith(t, OldBecameRenamed, routes(Thing)), { examples: 1 }))
}

/** A field `value` not renamed that the request converter of a change renaming another field (`ref` to `reference`) converts. */
async function converted (t: Teardown, type: TSchema, convert: Convert, routes = roundTrip): Promise<string[]> {
  const Thing = Type.Object({ reference: Type.String(), value: type }, { $id: 'Thing' })
  class RefBecameReference extends VersionChange {
    description = 'ref became reference.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('reference').had({ name: 'ref' })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.reference = request.body.ref
      request.body.value = convert(request.body.value)
      delete request.body.ref
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.ref = response.body.reference
      delete response.body.reference
    }
  }
  return summary(await verify(await appWith(t, RefBecameReference, routes(Thing)), { examples: 1 }))
}

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
