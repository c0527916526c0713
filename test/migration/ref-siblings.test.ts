/**
 * A `$ref` with keywords of its own beside it (`Type.Ref(Name, { maxLength: 20 })`, which Ajv applies with the schema
 * it names) in the request schemas of old versions: where a version changes the schema the `$ref` names, its form is
 * written into the version's schema, and the keywords beside the `$ref` still hold there.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import { HeadVersion, schema, Version, VersionBundle } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { v } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'

test('regression: a $ref with its own maxLength, to a shared schema a version changes: the old version dropped the maxLength (accepted too long, or a 500)', async (t) => {
  const Name = Type.String({ $id: 'Name', minLength: 1 })
  const CustomerCreate = Type.Object({ name: Type.Ref(Name, { maxLength: 20 }), nick: Type.Ref(Name, { maxLength: 20 }) })
  const Search = Type.Object({ q: Type.Ref(Name, { maxLength: 10 }) })
  const received: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('NamesDescribed', [
      // The shared schema the $refs name has another form in 2000-01-01.
      schema(Name).had({ description: 'A name.' }),
      // And one field's own keyword was stricter then.
      schema(CustomerCreate).field('nick').had({ maxLength: 10 })
    ])),
    new Version('2000-01-01')
  ), async (api) => {
    api.addSchema(Name)
    api.post('/customers', { schema: { body: CustomerCreate } }, async (request) => { received.push(request.body); return {} })
    api.get('/customers', { schema: { querystring: Search } }, async (request) => { received.push(request.query); return {} })
  })
  const cases = [
    { name: 'a'.repeat(21), nick: 'b', refused: 'body/name must NOT have more than 20 characters' },
    { name: 'a', nick: 'b'.repeat(11), refused: 'body/nick must NOT have more than 10 characters' },
    { name: 'a', nick: 'b'.repeat(21), refused: 'body/nick must NOT have more than 10 characters' }
  ]
  for (const { name, nick, refused } of cases) {
    const old = await app.inject({ method: 'POST', url: '/customers', headers: v('2000-01-01'), payload: { name, nick } })
    t.equal(old.statusCode, 400, `2000-01-01, ${name.length} and ${nick.length} characters: ${old.body}`)
    t.match(old.json().message, refused)
  }
  const long = await app.inject({ method: 'GET', url: `/customers?q=${'q'.repeat(11)}`, headers: v('2000-01-01') })
  t.equal(long.statusCode, 400, long.body)
  t.match(long.json().message, 'querystring/q must NOT have more than 10 characters')
  t.same(received, [], 'no handler ran')
  const accepted = await app.inject({ method: 'POST', url: '/customers', headers: v('2000-01-01'), payload: { name: 'a'.repeat(20), nick: 'b'.repeat(10) } })
  t.equal(accepted.statusCode, 200, accepted.body)
  const latest = await app.inject({ method: 'POST', url: '/customers', headers: v('2001-01-01'), payload: { name: 'a'.repeat(20), nick: 'b'.repeat(20) } })
  t.equal(latest.statusCode, 200, `the latest version takes HEAD's maxLength: ${latest.body}`)
  t.same(received, [{ name: 'a'.repeat(20), nick: 'b'.repeat(10) }, { name: 'a'.repeat(20), nick: 'b'.repeat(20) }])
})

test('regression: a deprecated $ref to a shared schema a version changes: that version\'s requests sending it were answered no Deprecation', async (t) => {
  const Card = Type.Object({ number: Type.String(), cvc: Type.Optional(Type.String()) }, { $id: 'Card' })
  const Body = Type.Object({ card: Type.Optional(Type.Ref(Card, { deprecated: true })), other: Type.Optional(Type.String()) })
  const app = await versionedApp(t, new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('CvcAdded', [schema(Card).field('cvc').didntExist])),
    new Version('2000-01-01')
  ), async (api) => {
    api.addSchema(Card)
    api.post('/payments', { schema: { body: Body } }, async () => ({}))
  })
  for (const version of ['2001-01-01', '2000-01-01']) {
    const sent = await app.inject({ method: 'POST', url: '/payments', headers: v(version), payload: { card: { number: '4242' } } })
    t.equal(sent.statusCode, 200, sent.body)
    t.equal(sent.headers.deprecation, '@0', `${version}: the card is deprecated`)
    t.equal(sent.headers.link, `</openapi.json?version=${version}>; rel="deprecation"`)
    const without = await app.inject({ method: 'POST', url: '/payments', headers: v(version), payload: { other: 'x' } })
    t.equal(without.headers.deprecation, undefined, `${version}: a request without it is not told`)
  }
})
