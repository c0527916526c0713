import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import fastifyCookie from '@fastify/cookie'
import { ConvertResponseToPreviousVersionFor, Version, VersionBundle, VersionChange, type ResponseInfo, ConvertRequestToNextVersionFor, HeadVersion, fastifyVersioner, schema, versioned, type RequestInfo } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'
import Fastify from 'fastify'
import { v } from '../helpers/request-pipeline'

const Session = Type.Object({ user: Type.String() })
const NotFound = Type.Object({ message: Type.String() })

/** The Set-Cookie header of a response, as a list. */
function setCookies (header: string | string[] | number | undefined): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header : [String(header)]
}

/** A version change whose response converters set and delete cookies, on success and on error. */
function cookieChange (): typeof VersionChange {
  class OldSessionCookies extends VersionChange {
    description = 'Older clients got a legacy session cookie, and no tracking cookie.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Session)
    legacyCookie (response: ResponseInfo) {
      response.setCookie('legacy_session', `for ${String(response.body.user)}`, {
        maxAge: 83, path: '/old', httpOnly: true, secure: true, sameSite: 'lax', domain: 'example.com'
      })
      response.deleteCookie('tracking', { path: '/' })
    }

    @ConvertResponseToPreviousVersionFor('/session', ['GET'], { migrateHttpErrors: true })
    onError (response: ResponseInfo) {
      if (response.statusCode === 404) response.setCookie('error_cookie', 'yes')
    }
  }
  return OldSessionCookies
}

for (const withPlugin of [false, true]) {
  test(`converters set and delete cookies ${withPlugin ? 'with' : 'without'} @fastify/cookie: a Set-Cookie header either way`, async (t) => {
    const versions = new VersionBundle(new Version('2001-01-01', cookieChange() as never), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.get('/session', { schema: { querystring: Type.Object({ missing: Type.Optional(Type.Boolean()) }), response: { 200: Session, 404: NotFound } } },
        async (request, reply) => {
          reply.header('set-cookie', 'handler_cookie=1; Path=/')
          if (request.query.missing === true) return reply.code(404).send({ message: 'no session' })
          return { user: 'ada' }
        })
    }, { beforeVersioner: withPlugin ? async (app) => { await app.register(fastifyCookie) } : undefined })

    const old = await call(app, '2000-01-01', '/session')
    t.equal(old.statusCode, 200)
    t.same(jsonOf(old), { user: 'ada' })
    const cookies = setCookies(old.headers['set-cookie'])
    t.equal(cookies.length, 3, 'the handler\'s cookie and the two set by the converter, once each')
    t.equal(cookies.filter((cookie) => cookie.startsWith('legacy_session=')).length, 1, 'one legacy_session cookie')
    t.ok(cookies.includes('handler_cookie=1; Path=/'), 'the handler\'s own cookie is kept')
    const legacy = cookies.find((cookie) => cookie.startsWith('legacy_session='))
    t.match(legacy, /^legacy_session=for%20ada; /, 'value encoded')
    t.match(legacy, /Max-Age=83/)
    t.match(legacy, /Domain=example\.com/)
    t.match(legacy, /Path=\/old/)
    t.match(legacy, /HttpOnly/)
    t.match(legacy, /Secure/)
    t.match(legacy, /SameSite=Lax/)
    const tracking = cookies.find((cookie) => cookie.startsWith('tracking='))
    t.match(tracking, /^tracking=;/, 'deleted: empty value')
    t.match(tracking, /Expires=Thu, 01 Jan 1970 00:00:00 GMT/, 'deleted: expired')
    t.match(tracking, /Path=\//)
    const parsed = old.cookies.find((cookie) => cookie.name === 'legacy_session')
    t.equal(parsed?.value, 'for ada', 'the client reads the cookie')

    const latest = await call(app, '2001-01-01', '/session')
    t.same(setCookies(latest.headers['set-cookie']), ['handler_cookie=1; Path=/'], 'latest: only the handler\'s cookie')

    const error = await call(app, '2000-01-01', '/session?missing=true')
    t.equal(error.statusCode, 404)
    t.same(jsonOf(error), { message: 'no session' })
    const errorCookies = setCookies(error.headers['set-cookie'])
    t.ok(errorCookies.includes('handler_cookie=1; Path=/'), 'the handler\'s cookie on the error response')
    t.ok(errorCookies.some((cookie) => cookie.startsWith('error_cookie=yes')), 'a cookie set by an error converter')
  })
}

test('converters change, add and delete response headers and change the success status', async (t) => {
  const seenHeaders: Array<Record<string, unknown>> = []

  class OldHeaders extends VersionChange {
    description = 'Older clients got x-old-* headers, no x-internal header, and 201 on creation.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Session)
    headers (response: ResponseInfo) {
      seenHeaders.push({ ...response.headers })
      delete response.headers['x-internal']
      response.headers['x-rate-limit'] = '10'
      response.headers['x-old-count'] = 3
      response.headers['cache-control'] = 'no-store'
    }

    @ConvertResponseToPreviousVersionFor('/sessions', ['POST'])
    created (response: ResponseInfo) {
      t.equal(response.statusCode, 200, 'the converter reads the status')
      response.statusCode = 201
      response.headers.location = `/sessions/${String(response.body.user)}`
    }

    @ConvertResponseToPreviousVersionFor('/sessions', ['POST'])
    afterCreated (response: ResponseInfo) {
      response.headers['x-status-seen'] = String(response.statusCode)
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', OldHeaders), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/sessions', { schema: { response: { 200: Session, 201: Session } } }, async (_request, reply) => {
      reply.header('x-internal', 'secret').header('x-rate-limit', '100').header('cache-control', 'max-age=60')
      return { user: 'ada' }
    })
  })

  const old = await call(app, '2000-01-01', '/sessions', { method: 'POST' })
  t.equal(old.statusCode, 201, 'status changed by the converter')
  t.same(jsonOf(old), { user: 'ada' })
  t.equal(old.headers['x-internal'], undefined, 'a header deleted by the converter is gone')
  t.equal(old.headers['x-rate-limit'], '10', 'a changed header')
  t.equal(old.headers['x-old-count'], '3', 'an added header')
  t.equal(old.headers['cache-control'], 'no-store')
  t.equal(old.headers.location, '/sessions/ada')
  t.equal(old.headers['x-status-seen'], '201', 'a later converter sees the new status')
  t.equal(old.headers['x-api-version'], '2000-01-01', 'the version header is kept')
  t.equal(seenHeaders.length, 1)
  t.match(seenHeaders[0], { 'x-internal': 'secret', 'x-rate-limit': '100', 'x-api-version': '2000-01-01' },
    'the converter sees the headers the handler set')

  const latest = await call(app, '2001-01-01', '/sessions', { method: 'POST' })
  t.equal(latest.statusCode, 200)
  t.equal(latest.headers['x-internal'], 'secret')
  t.equal(latest.headers['x-rate-limit'], '100')
  t.equal(latest.headers['x-old-count'], undefined)
  t.equal(latest.headers.location, undefined)
})

test('regression: a converter that only reads cookies leaves the Cookie header as it was', async (t) => {
  const Query = Type.Object({ page: Type.Optional(Type.Integer()) })
  const read: string[] = []
  class CookieReader extends VersionChange {
    description = 'page was p; a session cookie could rename itself.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('page').had({ name: 'p' })]

    @ConvertRequestToNextVersionFor('/cookies', ['GET'])
    readCookies (request: RequestInfo) {
      read.push(String(request.cookies.token))
      if (request.cookies.old_session !== undefined) {
        request.cookies.session = request.cookies.old_session
        delete request.cookies.old_session
      }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', CookieReader), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/cookies', { schema: { querystring: Query } }, async (request) => ({ cookie: request.headers.cookie ?? null }))
  }))

  const unchanged = await app.inject({ method: 'GET', url: '/cookies', headers: v('2000-01-01', { cookie: 'token=abc==; theme=dark' }) })
  t.same(unchanged.json(), { cookie: 'token=abc==; theme=dark' }, 'the header is not re-encoded')
  t.same(read, ['abc=='])

  const changed = await app.inject({ method: 'GET', url: '/cookies', headers: v('2000-01-01', { cookie: 'old_session=s 1; token=t' }) })
  t.same(changed.json(), { cookie: 'token=t; session=s%201' }, 'a changed jar is written back')
})
test('regression: an error before the handler sets the version headers once (Vary not repeated)', async (t) => {
  const Query = Type.Object({ page: Type.Integer() })
  class PageWasP extends VersionChange {
    description = 'page was p.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('page').had({ name: 'p' })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', PageWasP), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/pages', { schema: { querystring: Query } }, async (request) => request.query)
  }))
  for (const version of ['2000-01-01', '2001-01-01']) {
    const response = await app.inject({ method: 'GET', url: '/pages?p=x&page=x', headers: v(version) })
    t.equal(response.statusCode, 400, `${version}: a validation error`)
    t.equal(response.headers['x-api-version'], version)
    t.equal(response.headers.vary, 'x-api-version', `${version}: Vary names the version header once`)
  }
})

for (const withPlugin of [false, true]) {
  test(`cookies named like Object members disappeared: a request converter setting one cookie keeps constructor, toString, valueOf and __proto__ ${withPlugin ? 'with' : 'without'} @fastify/cookie`, async (t) => {
    class SessionsWereCalledSid extends VersionChange {
      description = 'The session cookie was called sid.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertRequestToNextVersionFor('/whoami', ['GET'])
      addCookie (request: RequestInfo) {
        request.cookies.added = 'a1'
      }
    }
    const versions = new VersionBundle(new Version('2001-01-01', SessionsWereCalledSid), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.get('/whoami', async (request) => ({
        header: request.headers.cookie,
        parsed: (request as { cookies?: Record<string, string> }).cookies === undefined ? null : { ...(request as unknown as { cookies: Record<string, string> }).cookies }
      }))
    }, { beforeVersioner: withPlugin ? async (app) => { await app.register(fastifyCookie) } : undefined })
    const cookie = 'session=s1; constructor=c1; toString=t1; valueOf=v1; __proto__=p1'
    const response = await call(app, '2000-01-01', '/whoami', { headers: { cookie } })
    t.equal(response.statusCode, 200)
    const body = jsonOf(response) as { header: string, parsed: Record<string, string> | null }
    t.same(body.header.split('; ').sort(), ['__proto__=p1', 'added=a1', 'constructor=c1', 'session=s1', 'toString=t1', 'valueOf=v1'],
      'every cookie reaches the handler\'s Cookie header')
    // Asserted in both variants: with the plugin its cookies must be there, not skipped when missing.
    if (withPlugin) t.match(body.parsed, { session: 's1', constructor: 'c1', toString: 't1', valueOf: 'v1', added: 'a1' }, 'and @fastify/cookie\'s cookies')
    else t.equal(body.parsed, null, 'no cookies parsed without @fastify/cookie')
    t.equal(({} as Record<string, unknown>).added, undefined, 'no prototype was touched')
  })
}

/** Ways a converter can mix headers and cookies: each sets c1 (and c2) and the header x-converted, in some order. */
const ORDERS: Record<string, (response: ResponseInfo) => void> = {
  'reads headers, then sets a cookie': (response) => {
    response.headers['x-converted'] = String(Object.keys(response.headers).length > 0)
    response.setCookie('c1', 'v1')
  },
  'sets a cookie, then writes a header': (response) => {
    response.setCookie('c1', 'v1')
    response.headers['x-converted'] = 'true'
  },
  'assigns the headers and sets two cookies around a header read': (response) => {
    response.headers = { ...response.headers, 'x-converted': 'true' }
    response.setCookie('c1', 'v1')
    response.headers['x-seen'] = String(response.headers['set-cookie'] !== undefined)
    response.deleteCookie('c2')
  }
}

for (const withPlugin of [false, true]) {
  for (const [order, convert] of Object.entries(ORDERS)) {
    test(`regression: a converter that ${order} sends every cookie and header, on successes and errors (${withPlugin ? 'with' : 'without'} @fastify/cookie)`, async (t) => {
      class HeadersAndCookies extends VersionChange {
        description = 'Older clients got cookies and a header.'
        instructionsToMigrateToPreviousVersion = []

        @ConvertResponseToPreviousVersionFor('/order', ['GET'], { migrateHttpErrors: true })
        mix (response: ResponseInfo) {
          convert(response)
        }
      }
      const versions = new VersionBundle(new Version('2001-01-01', HeadersAndCookies), new Version('2000-01-01'))
      const app = await versionedApp(t, versions, async (api) => {
        api.get('/order', { schema: { querystring: Type.Object({ fail: Type.Optional(Type.String()) }), response: { 200: Session, 404: NotFound } } },
          async (request, reply) => {
            reply.header('set-cookie', 'handler_cookie=1; Path=/')
            if (request.query.fail === 'thrown') throw Object.assign(new Error('no order'), { statusCode: 404 })
            if (request.query.fail === 'sent') return reply.code(404).send({ message: 'no order' })
            return { user: 'ada' }
          })
      }, { beforeVersioner: withPlugin ? async (app) => { await app.register(fastifyCookie) } : undefined })
      for (const url of ['/order', '/order?fail=thrown', '/order?fail=sent']) {
        const response = await call(app, '2000-01-01', url)
        t.equal(response.statusCode, url === '/order' ? 200 : 404, `${url}: status`)
        const cookies = setCookies(response.headers['set-cookie'])
        t.ok(cookies.includes('handler_cookie=1; Path=/'), `${url}: the handler's cookie`)
        t.ok(cookies.some((cookie) => cookie.startsWith('c1=v1')), `${url}: the converter's cookie`)
        if (order.includes('two cookies')) {
          t.ok(cookies.some((cookie) => cookie.startsWith('c2=;')), `${url}: the deleted cookie`)
          t.ok(response.headers['x-seen'] !== undefined, `${url}: the header written after a cookie`)
        }
        t.equal(response.headers['x-converted'], 'true', `${url}: the converter's header`)
      }
    })
  }
}
