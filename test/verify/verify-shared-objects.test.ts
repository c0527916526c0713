// `verify` on a converter handing one object to every body (decision 0313): a module constant, a default object or a
// cached record assigned by a converter is the same object in every request; a later converter (or, for a request,
// the handler) that changes it in place changes every later answer, of every client, in every version. Each app
// assigning a copy verifies cleanly.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'
import { nodesOf, objectsOf, pathIn } from '../../lib/tools/converted-twice'

const Card = Type.Object({ type: Type.Literal('card'), brand: Type.String(), last4: Type.String() }, { $id: 'Card' })
const Link = Type.Object({ type: Type.Literal('link'), email: Type.String() }, { $id: 'Link' })
const Payment = Type.Object({ id: Type.String(), method: Type.Union([Card, Link]) }, { $id: 'Payment' })

/** A ready app: `LinkPayments` (2002-01-01) giving older versions a card for a Link payment, then `BrandWasUpperCase` (2001-01-01). */
async function payments (t: Parameters<typeof versionedApp>[0], copy: boolean): Promise<FastifyInstance> {
  const LINK_AS_CARD = { type: 'card', brand: 'link', last4: '0000' }
  class LinkPayments extends VersionChange {
    description = 'A payment may be made with Link; older versions read it as a card of brand link.'
    instructionsToMigrateToPreviousVersion = [schema(Payment).field('method').had({ type: Card })]

    @ConvertResponseToPreviousVersionFor(Payment)
    linkAsCard (response: ResponseInfo) {
      if (response.body.method.type === 'link') response.body.method = copy ? { ...LINK_AS_CARD } : LINK_AS_CARD
    }
  }
  class BrandWasUpperCase extends VersionChange {
    description = 'Card brands were upper case.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Card)
    brandUp (response: ResponseInfo) {
      // In place, on the card it was given: the shared card of the converter before it, when it was one.
      response.body.brand = String(response.body.brand).toUpperCase()
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', LinkPayments), new Version('2001-01-01', BrandWasUpperCase), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/payments/:id', { schema: { response: { 200: Payment } } }, async () => ({ id: 'p1', method: { type: 'link' as const, email: 'ada@example.com' } }))
  })
  await app.ready()
  return app
}

test('a response converter assigning a module constant a later converter changes in place is found, naming it, the place and the fix', async (t) => {
  const app = await payments(t, false)
  const findings = await verify(app, { examples: 20, seed: 3 })
  t.same(summary(findings), ['GET /payments/:id 2001-01-01 response shared object response 200/method after LinkPayments (2002-01-01) by LinkPayments.linkAsCard'])
  const [finding] = findings
  t.match(finding.message, 'LinkPayments.linkAsCard assigns one object to every body (method): a later converter that changes it changes every later answer')
  t.match(finding.fix, 'Make LinkPayments.linkAsCard assign a copy each time it runs')
  t.match(finding.text, /^GET \/payments\/:id \(2001-01-01; also 2000-01-01\): response 200\/method: LinkPayments\.linkAsCard assigns one object to every body \(method\)/)
  const again = await payments(t, false)
  t.equal(JSON.stringify(await verify(again, { examples: 20, seed: 3 })), JSON.stringify(findings), 'the same seed, the same finding')
})

test('the same converter assigning a copy verifies cleanly', async (t) => {
  t.same(summary(await verify(await payments(t, true), { examples: 20, seed: 3 })), [])
})

test('a converter giving every item of a list one default object is found, even with no converter after it', async (t) => {
  const Tag = Type.Object({ name: Type.String(), style: Type.Object({ color: Type.String() }) }, { $id: 'Tag' })
  const TagList = Type.Object({ data: Type.Array(Tag, { minItems: 2 }) }, { $id: 'TagList' })
  const DEFAULT_STYLE = { color: 'grey' }
  class TagsWereStyled extends VersionChange {
    description = 'Tags had a style; the color was grey.'
    instructionsToMigrateToPreviousVersion = [schema(Tag).field('style').didntExist, schema(Tag).formerField('style').existedAs({ type: Type.Object({ color: Type.String() }) })]

    @ConvertResponseToPreviousVersionFor(Tag)
    styleDown (response: ResponseInfo) {
      response.body.style = DEFAULT_STYLE
    }
  }
  const app = await appWith(t, TagsWereStyled, (api) => {
    api.get('/tags', { schema: { response: { 200: TagList } } }, async () => ({ data: [{ name: 'a', style: { color: 'red' } }, { name: 'b', style: { color: 'red' } }] }))
  })
  const findings = await verify(app, { examples: 20 })
  t.same(summary(findings).filter((line) => line.includes('shared object')), ['GET /tags 2000-01-01 response shared object response 200/data/*/style after TagsWereStyled (2001-01-01) by TagsWereStyled.styleDown'])
})

test('a request converter assigning a default object the handler may keep and change is found, naming the handler', async (t) => {
  const Address = Type.Object({ street: Type.String(), city: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ name: Type.String(), address: Address }, { $id: 'User' })
  const UserCreated = Type.Object({ name: Type.String() })
  const make = (copy: boolean): typeof VersionChange => {
    const EMPTY_ADDRESS = { street: '', city: '' }
    class UsersHaveAnAddress extends VersionChange {
      description = 'Users have an address.'
      instructionsToMigrateToPreviousVersion = [schema(User).field('address').didntExist]

      @ConvertRequestToNextVersionFor(User)
      emptyAddress (request: RequestInfo) {
        request.body.address = copy ? structuredClone(EMPTY_ADDRESS) : EMPTY_ADDRESS
      }
    }
    return UsersHaveAnAddress
  }
  const routes = (api: FastifyInstance): void => {
    api.post('/users', { schema: { body: User, response: { 201: UserCreated } } }, async (request, reply) => reply.code(201).send({ name: (request.body as { name: string }).name }))
  }
  const findings = await verify(await appWith(t, make(false) as never, routes), { examples: 20 })
  t.same(summary(findings), ['POST /users 2000-01-01 request shared object body/address after UsersHaveAnAddress (2001-01-01) by UsersHaveAnAddress.emptyAddress'])
  t.match(findings[0].message, 'a later converter or the handler that changes it changes every later request')
  t.same(summary(await verify(await appWith(t, make(true) as never, routes), { examples: 20 })), [], 'a copy each time verifies cleanly')
})

test('the watch\'s path-free walk finds the objects objectsOf finds, in its order, and pathIn the path objectsOf gives each', async (t) => {
  // A shared object at two places, a cycle, a list of objects and scalars: the reported path is the first place found.
  const shared: Record<string, unknown> = { brand: 'link' }
  const body: Record<string, unknown> = { id: 'pay_1', lines: [{ amount: 1, card: shared }, 2, null, { amount: 3 }], method: shared, meta: { note: 'x' } }
  ;(body.meta as Record<string, unknown>).self = body
  const withPaths = objectsOf(body)
  t.same([...nodesOf(body)], [...withPaths.keys()], 'the same objects, in the same order')
  t.equal(withPaths.size, 6, 'each object once: the body, lines, its two objects, the shared card, meta')
  for (const [node, path] of withPaths) t.same(pathIn(body, node), path, `pathIn gives ${JSON.stringify(path)}`)
  t.same(withPaths.get(shared), ['method'], 'the shared card where the walk meets it first')
  t.same([nodesOf('text').size, objectsOf(7).size], [0, 0], 'a scalar holds no object')
})
