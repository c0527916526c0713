// `check` on a request field's `default` added or removed (decision 0323): the application's Ajv fills a default into
// every request that leaves the field out, so the saved version's clients that leave it out are served otherwise (a
// one-word name given the family name '', where it had none). A break where the field may be left out and Ajv fills
// defaults; nothing red where it may not (a required field, an item, a response, `useDefaults: false`).
import { test } from 'tap'
import { compareDocuments } from '../../tools'

const OLD = '2000-01-01'

type Json = Record<string, any>

/** A document of `POST /users` whose body's `name`, `tags` items and query parameter `limit` have `field`, `item` and `parameter` merged in. */
function document ({ field = {}, item = {}, parameter = {}, required = [] }: { field?: Json, item?: Json, parameter?: Json, required?: string[] }): Json {
  return {
    openapi: '3.1.0',
    info: { title: 'Users', version: OLD },
    paths: {
      '/users': {
        post: {
          parameters: [{ in: 'query', name: 'limit', schema: { type: 'integer', ...parameter } }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', ...field }, tags: { type: 'array', items: { type: 'string', ...item } } }, required } } } },
          responses: { 200: { description: 'The user', content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } } }
        }
      }
    }
  }
}

const breaks = (saved: Json, current: Json, useDefaults = true): string[] =>
  compareDocuments(OLD, saved, current, { ajv: { customOptions: { useDefaults } } }).filter((change) => change.breaking).map((change) => change.text).sort()

test('a default added to an optional request field breaks: a client that leaves it out is now given it', async (t) => {
  t.same(breaks(document({}), document({ field: { default: '' } })), [
    `${OLD} POST /users: request body /name: default (none) → '' (a request that leaves it out is given '' now; it was served without it. If the handler already read an absent field as '', export the snapshot again)`
  ], 'a body field')
  t.same(breaks(document({}), document({ parameter: { default: 10 } })), [
    `${OLD} POST /users: query parameter limit /: default (none) → 10 (a request that leaves it out is given 10 now; it was served without it. If the handler already read an absent field as 10, export the snapshot again)`
  ], 'a query parameter')
})

test('a default removed from an optional request field breaks: a client that leaves it out is now served without it', async (t) => {
  t.same(breaks(document({ field: { default: 'Anonymous' } }), document({})), [
    `${OLD} POST /users: request body /name: default 'Anonymous' → (none) (a request that leaves it out is served without it now; it was given 'Anonymous'. If the handler reads an absent field as 'Anonymous', export the snapshot again)`
  ])
})

test('nothing red where the field is always sent, nothing is filled, or the default is the same', async (t) => {
  t.same(breaks(document({ required: ['name'] }), document({ required: ['name'], field: { default: '' } })), [], 'a required field: its clients always send it')
  t.same(breaks(document({}), document({ field: { default: '' } }), false), [], "the app's useDefaults: false fills nothing")
  t.same(breaks(document({}), document({ item: { default: '' } })), [], 'a list item: Ajv fills no default of an item')
  t.same(breaks(document({ field: { default: '' } }), document({ field: { default: '' } })), [], 'the same default: nothing')
})
