// `verify` on apps whose Ajv rewrites strings while validating (ajv-keywords' `transform`, decision 0317): what the
// version's validation made of a value before any converter ran is what must reach HEAD. A converter carrying the
// rewritten value whole is clean, one way and on a round trip; one that changes it again is still found, unless HEAD's
// validation, after the converters, rewrites it back (what the handler reads).
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import ajvErrors from 'ajv-errors'
import ajvKeywords from 'ajv-keywords'
import ajvFormats from 'ajv-formats'
import type { FastifyServerOptions } from 'fastify'
import type { Teardown } from '../helpers/apps'
import { appWith, oneWay, renamedField, roundTrip, summary, type Convert } from '../helpers/verify-apps'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'

/** The Ajv setup teams give Fastify with these plugins. */
const ajv: FastifyServerOptions['ajv'] = {
  customOptions: { allErrors: true },
  plugins: [ajvErrors, [ajvKeywords, ['transform']], ajvFormats] as NonNullable<FastifyServerOptions['ajv']>['plugins']
}

/** The findings on a field renamed from `old` (of `type`) whose converters pass it through `convert`, in an app with these plugins. */
async function findings (t: Teardown, type: TSchema, convert: Convert, routes: typeof oneWay): Promise<string[]> {
  const { Thing, change } = renamedField(type, convert)
  return summary(await verify(await appWith(t, change, routes(Thing), { fastify: { ajv } }), { examples: 3 }))
}

const carried: Convert = (value) => value
const folded: Convert = (value: string) => value.toLowerCase()

test('a value the validation rewrote (transform) and a converter carries whole is clean', async (t) => {
  const rewriting: Array<[string, TSchema]> = [
    ['trim, toLowerCase', Type.String({ transform: ['trim', 'toLowerCase'] })],
    ['an e-mail trimmed and lower-cased', Type.String({ format: 'email', transform: ['trim', 'toLowerCase'], errorMessage: 'must be an e-mail address' })],
    ['toUpperCase', Type.String({ transform: ['toUpperCase'] })]
  ]
  for (const [name, type] of rewriting) {
    t.same(await findings(t, type, carried, oneWay), [], `${name}, one way`)
    t.same(await findings(t, type, carried, roundTrip), [], `${name}, on a round trip`)
  }
})

test('a converter changing a value the validation rewrote is still found', async (t) => {
  const lost = ['POST /things 2000-01-01 request lost body/old after OldBecameRenamed (2001-01-01) by OldBecameRenamed.up', 'GET /things 2000-01-01 response lost response 200/renamed after OldBecameRenamed (2001-01-01) by OldBecameRenamed.down']
  t.same(await findings(t, Type.String({ transform: ['trim'] }), folded, oneWay), lost, 'trimmed by the validation, lower-cased by the converters')
  t.same(await findings(t, Type.String({ transform: ['toUpperCase'] }), (value: string) => value.slice(1), oneWay), lost, 'upper-cased by the validation, cut by the converters')
})

test('a request converter\'s change that HEAD\'s validation rewrites back is no loss; in a response it is', async (t) => {
  // HEAD upper-cases the code: a request converter lower-casing it hands the handler what the client sent, upper-cased.
  t.same(await findings(t, Type.String({ transform: ['toUpperCase'] }), folded, oneWay), [
    'GET /things 2000-01-01 response lost response 200/renamed after OldBecameRenamed (2001-01-01) by OldBecameRenamed.down'
  ])
})

test('a version keeping the case HEAD\'s validation folds after the converters loses it, and is found', async (t) => {
  // Old clients' names kept their case (`had({ transform: ['trim'] })`); HEAD folds them: the handler reads HEAD's rewrite.
  const Thing = Type.Object({ id: Type.String(), renamed: Type.String({ transform: ['trim', 'toLowerCase'] }) }, { $id: 'Thing' })
  class NamesFolded extends VersionChange {
    description = 'names are folded to lower case.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('renamed').had({ name: 'old', transform: ['trim'] })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.renamed = request.body.old
      delete request.body.old
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.old = response.body.renamed
      delete response.body.renamed
    }
  }
  const found = await verify(await appWith(t, NamesFolded, oneWay(Thing), { fastify: { ajv } }), { examples: 3 })
  t.same(found.map(({ kind, pointer }) => `${kind} ${pointer}`), ['lost /old'])
  t.match(found[0], { message: /its case changed/, fix: /HEAD's validation rewrites this string after the converters/ })
})
