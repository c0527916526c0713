/**
 * Browsers: with `@fastify/cors` exposing them (the README's recipe), cross-origin code can read the version headers
 * (the configured name, `Deprecation`, `Sunset`, `Link`); a preflight lets it send the version header.
 */
import { test } from 'tap'
import Fastify from 'fastify'
import cors from '@fastify/cors'
import { fastifyVersioner, Version, VersionBundle, versioned } from '../../plugin'

const ORIGIN = 'https://app.example.com'

async function corsApp (t: { teardown: (fn: () => unknown) => void }) {
  const app = Fastify()
  t.teardown(() => app.close())
  const header = 'stripe-version'
  await app.register(cors, { origin: [ORIGIN], exposedHeaders: [header, 'Deprecation', 'Sunset', 'Link'] })
  await app.register(fastifyVersioner, {
    apiVersionParameterName: header,
    versions: new VersionBundle(
      new Version('2001-01-01'),
      new Version('2000-01-01', { deprecatedAt: new Date('2001-01-01'), sunsetAt: new Date('2030-01-01'), link: 'https://example.com/upgrade' })
    )
  })
  await app.register(versioned(async (api) => { api.get('/items', async (request) => ({ version: request.apiVersion })) }))
  await app.ready()
  return app
}

test('a preflight from another origin may send the version header', async (t) => {
  const app = await corsApp(t)
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/items',
    headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'stripe-version' }
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], ORIGIN)
  t.match(String(preflight.headers['access-control-allow-headers']), /stripe-version/i)
})

test('an actual cross-origin request: the echoed version and the lifecycle headers are exposed to browser code', async (t) => {
  const app = await corsApp(t)
  const answer = await app.inject({ url: '/items', headers: { origin: ORIGIN, 'stripe-version': '2000-06-01' } })
  t.equal(answer.statusCode, 200)
  t.same(answer.json(), { version: '2000-01-01' })
  t.equal(answer.headers['access-control-allow-origin'], ORIGIN)
  const exposed = String(answer.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/)
  for (const name of ['stripe-version', 'deprecation', 'sunset', 'link']) {
    t.ok(exposed.includes(name), `${name} is exposed`)
    t.ok(answer.headers[name] !== undefined, `${name} is sent`)
  }
  t.equal(answer.headers['stripe-version'], '2000-01-01', 'the version served, readable by the page')
  const elsewhere = await app.inject({ url: '/items', headers: { origin: 'https://evil.example', 'stripe-version': '2001-01-01' } })
  t.equal(elsewhere.headers['access-control-allow-origin'], undefined, 'another origin is not allowed')
})
