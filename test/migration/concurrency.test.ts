import { Agent } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange,
  VersionChangeWithSideEffects, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, httpGet, jsonOf, sleep } from '../helpers/http'

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01'] as const

/** A random delay of up to `max` milliseconds. */
function jitter (max = 15): Promise<void> {
  return sleep(Math.floor(Math.random() * max))
}

test('interleaved requests of different versions never see each other\'s bodies, headers or converter results', async (t) => {
  const EchoRequest = Type.Object({ id: Type.String(), amount: Type.Integer() })
  const EchoResource = Type.Object({ id: Type.String(), amount: Type.Integer(), trail: Type.Array(Type.String()) })

  class AmountInCents extends VersionChange {
    description = 'amount is in cents; it was in euros (amountEuros).'
    instructionsToMigrateToPreviousVersion = [
      schema(EchoRequest).field('amount').had({ name: 'amountEuros' }),
      schema(EchoResource).field('amount').had({ name: 'amountEuros' })
    ]

    // Asynchronous converters (not `async` methods, which do not type-check with the decorators).
    @ConvertRequestToNextVersionFor(EchoRequest)
    toCents (request: RequestInfo): unknown {
      return jitter().then(() => {
        request.body.amount = Number(request.body.amountEuros) * 100
        delete request.body.amountEuros
        request.headers['x-converted-for'] = String(request.body.id)
      })
    }

    @ConvertResponseToPreviousVersionFor(EchoResource)
    toEuros (response: ResponseInfo): unknown {
      return jitter().then(() => {
        response.body.amountEuros = Number(response.body.amount) / 100
        delete response.body.amount
        response.body.trail = [...response.body.trail, `2002:${String(response.body.id)}`]
        response.headers['x-response-for'] = String(response.body.id)
      })
    }
  }

  class TrailHeader extends VersionChange {
    description = 'The trail of 2000-01-01.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/echo', ['POST'])
    trail (response: ResponseInfo) {
      response.body.trail = [...response.body.trail, `2001:${String(response.body.id)}`]
      response.headers['x-trail'] = (response.body.trail as string[]).join(',')
    }
  }

  const versions = new VersionBundle(
    new Version('2002-01-01', AmountInCents),
    new Version('2001-01-01', TrailHeader),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/echo', { schema: { body: EchoRequest, response: { 200: EchoResource } } }, async (request, reply) => {
      const { id, amount } = request.body
      const header = request.headers['x-converted-for']
      await jitter()
      reply.header('x-handler-for', id)
      return { id, amount, trail: [`head:${id}:${String(header ?? '-')}:${String(request.apiVersion)}`] }
    })
  })

  const requests = Array.from({ length: 60 }, (_, index) => {
    const version = VERSIONS[index % 3]
    const id = `r${index}`
    const payload = version === '2002-01-01' ? { id, amount: index * 100 } : { id, amountEuros: index }
    return { version, id, index, promise: call(app, version, '/echo', { method: 'POST', payload }) }
  })
  const responses = await Promise.all(requests.map((request) => request.promise))

  let mismatches = 0
  for (const [position, { version, id, index }] of requests.entries()) {
    const response = responses[position]
    const body = jsonOf(response)
    const head = version === '2002-01-01' ? `head:${id}:-:${version}` : `head:${id}:${id}:${version}`
    let expected: unknown
    if (version === '2002-01-01') expected = { id, amount: index * 100, trail: [head] }
    if (version === '2001-01-01') expected = { id, amountEuros: index, trail: [head, `2002:${id}`] }
    if (version === '2000-01-01') expected = { id, amountEuros: index, trail: [head, `2002:${id}`, `2001:${id}`] }
    const headersOk = response.headers['x-api-version'] === version &&
      response.headers['x-handler-for'] === id &&
      response.headers['x-response-for'] === (version === '2002-01-01' ? undefined : id) &&
      response.headers['x-trail'] === (version === '2000-01-01' ? `${head},2002:${id},2001:${id}` : undefined)
    if (response.statusCode !== 200 || JSON.stringify(body) !== JSON.stringify(expected) || !headersOk) {
      mismatches++
      t.fail(`request ${id} (${version}) got ${response.statusCode} ${response.body} ${JSON.stringify(response.headers)}`)
    }
  }
  t.equal(mismatches, 0, 'all 60 responses carry their own data only')
  t.same(jsonOf(responses[5]), { id: 'r5', amountEuros: 5, trail: ['head:r5:r5:2000-01-01', '2002:r5', '2001:r5'] }, 'a sample response')
})

test('VersionChangeWithSideEffects.isApplied follows the version of each request, in handlers and preHandler hooks', async (t) => {
  class SendsWelcomeEmail extends VersionChangeWithSideEffects {
    description = 'Creating a user sends a welcome email.'
    instructionsToMigrateToPreviousVersion = []
  }
  class ChargesTax extends VersionChangeWithSideEffects {
    description = 'Orders are charged tax.'
    instructionsToMigrateToPreviousVersion = []
  }

  const versions = new VersionBundle(
    new Version('2002-01-01', SendsWelcomeEmail),
    new Version('2001-01-01', ChargesTax),
    new Version('2000-01-01')
  )
  const Seen = Type.Object({
    version: Type.String(),
    welcome: Type.Boolean(),
    tax: Type.Boolean(),
    hookWelcome: Type.Boolean(),
    hookTax: Type.Boolean()
  })
  const hookSeen = new WeakMap<object, { welcome: boolean, tax: boolean }>()
  const app = await versionedApp(t, versions, async (api) => {
    api.addHook('preHandler', async (request) => {
      await jitter()
      hookSeen.set(request, { welcome: SendsWelcomeEmail.isApplied, tax: ChargesTax.isApplied })
    })
    api.get('/effects', { schema: { response: { 200: Seen } } }, async (request) => {
      await jitter()
      const welcome = SendsWelcomeEmail.isApplied
      await new Promise((resolve) => setImmediate(resolve))
      const tax = ChargesTax.isApplied
      const hook = hookSeen.get(request)
      return { version: String(request.apiVersion), welcome, tax, hookWelcome: hook?.welcome ?? false, hookTax: hook?.tax ?? false }
    })
  })
  app.get('/unversioned', async () => {
    await jitter()
    return { welcome: SendsWelcomeEmail.isApplied, tax: ChargesTax.isApplied }
  })

  const expected: Record<string, { welcome: boolean, tax: boolean }> = {
    '2002-01-01': { welcome: true, tax: true },
    '2001-01-01': { welcome: false, tax: true },
    '2000-01-01': { welcome: false, tax: false }
  }
  const asked = Array.from({ length: 50 }, (_, index) => index % 5 === 4 ? '2001-06-15' : VERSIONS[index % 3])
  const responses = await Promise.all([
    ...asked.map((version) => call(app, version, '/effects')),
    app.inject({ url: '/unversioned', headers: { 'x-api-version': '2000-01-01' } })
  ])
  const unversioned = responses.pop()

  let wrong = 0
  for (const [index, response] of responses.entries()) {
    const served = asked[index] === '2001-06-15' ? '2001-01-01' : asked[index]
    const want = expected[served]
    const wanted = { version: served, welcome: want.welcome, tax: want.tax, hookWelcome: want.welcome, hookTax: want.tax }
    if (response.statusCode !== 200 || JSON.stringify(jsonOf(response)) !== JSON.stringify(wanted)) {
      wrong++
      t.fail(`request ${index} for ${asked[index]}: ${response.statusCode} ${response.body}`)
    }
  }
  t.equal(wrong, 0, 'all 50 requests saw the side effects of their own version')
  t.same(jsonOf(responses[0]), { version: '2002-01-01', welcome: true, tax: true, hookWelcome: true, hookTax: true })
  t.same(jsonOf(responses[2]), { version: '2000-01-01', welcome: false, tax: false, hookWelcome: false, hookTax: false })
  t.same(jsonOf(responses[4]), { version: '2001-01-01', welcome: false, tax: true, hookWelcome: false, hookTax: true }, 'waterfalled date')

  t.equal(unversioned?.statusCode, 200)
  t.same(unversioned === undefined ? undefined : jsonOf(unversioned), { welcome: true, tax: true }, 'an unversioned route sees every side effect')
  t.equal(SendsWelcomeEmail.isApplied, true, 'outside any request: applied')
  t.equal(ChargesTax.isApplied, true)
})

test('over a real keep-alive connection, the version of one request does not leak into the next', async (t) => {
  class SendsInvoices extends VersionChangeWithSideEffects {
    description = 'Orders send invoices.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new Version('2001-01-01', SendsInvoices), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/versioned', async (request) => {
      await jitter(5)
      return { version: request.apiVersion, applied: SendsInvoices.isApplied }
    })
  })
  app.get('/unversioned', async () => {
    await jitter(5)
    return { applied: SendsInvoices.isApplied }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())

  const first = await httpGet(port, '/versioned', agent, { 'x-api-version': '2000-01-01' })
  t.same(first.body, { version: '2000-01-01', applied: false })
  t.equal(first.headers['x-api-version'], '2000-01-01')
  const after = await httpGet(port, '/unversioned', agent)
  t.same(after.body, { applied: true }, 'an unversioned request on the same connection sees every side effect')
  const latest = await httpGet(port, '/versioned', agent, { 'x-api-version': '2001-01-01' })
  t.same(latest.body, { version: '2001-01-01', applied: true })
  const older = await httpGet(port, '/versioned', agent, { 'x-api-version': '2000-01-01' })
  t.same(older.body, { version: '2000-01-01', applied: false }, 'each versioned request sees its own version')

  const mixed = await Promise.all(Array.from({ length: 30 }, (_, index) => index % 2 === 0
    ? httpGet(port, '/versioned', agent, { 'x-api-version': index % 4 === 0 ? '2000-01-01' : '2001-01-01' })
    : httpGet(port, '/versioned', new Agent({ keepAlive: false }), { 'x-api-version': '2000-01-01' })))
  const wrong = mixed.filter((response, index) => {
    const version = index % 2 === 1 || index % 4 === 0 ? '2000-01-01' : '2001-01-01'
    return JSON.stringify(response.body) !== JSON.stringify({ version, applied: version === '2001-01-01' })
  })
  t.equal(wrong.length, 0, 'interleaved versioned requests over HTTP see their own version')
})
