import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange,
  versioned, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'

/**
 * A converter may be async (return a promise): the converters after it run once it settles, on every occurrence of
 * their schema that is left, in order, on requests and responses alike; a synchronous run and an asynchronous one
 * give the same body.
 */

const Item = Type.Object({ label: Type.String() }, { $id: 'AsyncItem' })
const Basket = Type.Object({ owner: Type.String(), items: Type.Array(Item) }, { $id: 'AsyncBasket' })

const tick = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

function changes (asynchronous: boolean): { older: VersionChangeClass, newer: VersionChangeClass, order: string[] } {
  const order: string[] = []
  const wait = async (): Promise<void> => { if (asynchronous) await tick() }
  // 2000-01-01 → 2001-01-01: items were called `name` (by schema: on every item of the basket).
  class ItemLabel extends VersionChange {
    description = 'label was called name.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('label').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Item)
    async up (request: RequestInfo) {
      order.push(`up ${String(request.body.name)}`)
      await wait()
      request.body.label = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(Item)
    async down (response: ResponseInfo) {
      order.push(`down ${String(response.body.label)}`)
      await wait()
      response.body.name = response.body.label
      delete response.body.label
    }
  }
  // 2001-01-01 → 2002-01-01: the basket's owner was `user` (on the whole body), and items were upper case.
  class OwnerField extends VersionChange {
    description = 'owner was called user.'
    instructionsToMigrateToPreviousVersion = [schema(Basket).field('owner').had({ name: 'user' })]

    @ConvertRequestToNextVersionFor(Basket)
    async upBasket (request: RequestInfo) {
      order.push('up basket')
      await wait()
      request.body.owner = request.body.user
      delete request.body.user
    }

    @ConvertRequestToNextVersionFor(Item)
    upperItem (request: RequestInfo) {
      order.push(`upper ${String(request.body.label)}`)
      request.body.label = String(request.body.label).toLowerCase()
    }

    @ConvertResponseToPreviousVersionFor(Basket)
    async downBasket (response: ResponseInfo) {
      order.push('down basket')
      await wait()
      response.body.user = response.body.owner
      delete response.body.owner
    }

    @ConvertResponseToPreviousVersionFor(Item)
    lowerItem (response: ResponseInfo) {
      order.push(`lower ${String(response.body.label)}`)
      response.body.label = String(response.body.label).toUpperCase()
    }
  }
  return { older: ItemLabel, newer: OwnerField, order }
}

for (const asynchronous of [true, false]) {
  test(`${asynchronous ? 'async' : 'synchronous'} converters convert every occurrence, in order, both ways`, async (t) => {
    const { older, newer, order } = changes(asynchronous)
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, {
      versions: new VersionBundle(new HeadVersion(), new Version('2002-01-01', newer), new Version('2001-01-01', older), new Version('2000-01-01'))
    })
    let received: unknown
    await app.register(versioned(async (api) => {
      api.post('/baskets', { schema: { body: Basket, response: { 200: Basket } } }, async (request) => {
        received = request.body
        return request.body
      })
    }))
    const response = await app.inject({
      method: 'POST', url: '/baskets', headers: { 'x-api-version': '2000-01-01' }, payload: { user: 'ada', items: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] }
    })
    t.equal(response.statusCode, 200, response.body)
    t.same(received, { owner: 'ada', items: [{ label: 'a' }, { label: 'b' }, { label: 'c' }] }, 'HEAD data reached the handler')
    t.same(response.json(), { user: 'ada', items: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] }, 'the oldest version\'s body came back')
    t.same(order, [
      'up A', 'up B', 'up C', 'up basket', 'upper A', 'upper B', 'upper C',
      'down basket', 'lower a', 'lower b', 'lower c', 'down A', 'down B', 'down C'
    ], 'each converter ran on every occurrence, the next one after it settled')
  })
}
