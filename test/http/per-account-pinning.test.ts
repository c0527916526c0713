/**
 * Per-account pinning, Stripe's model: a custom `VersionPicker` reads the version an account is pinned to from
 * an (asynchronous) account store, unless the request names one. Routes replaced by another HEAD route at the
 * same path and method across versions are routed by the picked version exactly as with header versions, over
 * inject and real HTTP; a picker that throws or rejects, whatever with, answers a logged 500 for that request only.
 */
import { test } from 'tap'
import sensible from '@fastify/sensible'
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify'
import { Writable } from 'node:stream'
import { endpoint, VersionPicker, type FastifyVersionerOptions } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { bundleOf, DATES, listen, sharedPathBundle, sharedPathRoutes } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { changeClass } from '../helpers/version-changes'

/** A fake account store: API key → pinned version, answered asynchronously; some keys make it fail. */
const accounts = {
  calls: 0,
  async pinnedVersion (key: string | undefined): Promise<string | undefined> {
    this.calls++
    await new Promise((resolve) => setImmediate(resolve))
    switch (key) {
      case 'sk_down': throw new Error('account store unreachable')
      case 'sk_null': throw null // eslint-disable-line no-throw-literal
      case 'sk_revoked': throw Object.assign(new Error('This API key was revoked.'), { statusCode: 401 })
      default: return ({ sk_acme: '2000-01-01', sk_globex: '2002-01-01', sk_initech: '2001-06-01', sk_hooli: '1999-01-01' } as Record<string, string>)[key ?? '']
    }
  }
}

/** The version the request names, else the one its account is pinned to. */
class AccountPinnedVersionPicker extends VersionPicker {
  override async pick (request: FastifyRequest): Promise<string | undefined> {
    const key = request.headers.authorization?.replace(/^Bearer /, '')
    return this.requested(request) ?? await accounts.pinnedVersion(key)
  }
}

/** A picker that fails synchronously, before returning a promise. */
class ThrowingPicker extends VersionPicker {
  override pick (request: FastifyRequest): string | undefined {
    if (request.headers['x-fail'] === 'string') throw 'no account' // eslint-disable-line no-throw-literal
    if (request.headers['x-fail'] === 'error') throw new TypeError('picker bug')
    return this.requested(request)
  }
}

/**
 * `GET /users/:id` and `DELETE /users/:id` are answered by HEAD routes `new` from 2002-01-01 on, by the restored
 * `legacy` routes (moved to `/users/:id`) in 2001-01-01 and 2000-01-01.
 */
function replacedRoutes () {
  return bundleOf(DATES, {
    '2002-01-01': [changeClass('ReplaceUserEndpoints', [
      endpoint('/users/:id', ['GET', 'DELETE']).didntExist,
      endpoint('/legacy-users/:id', ['GET', 'DELETE']).existed,
      endpoint('/legacy-users/:id', ['GET', 'DELETE']).had({ path: '/users/:id' })
    ])]
  })
}

const answer = (handler: string) => async (request: FastifyRequest) => ({ handler, id: (request.params as { id: string }).id, version: request.apiVersion })

async function pinnedApp (t: Teardown, options: Partial<FastifyVersionerOptions> = {}, logs?: string[], fastify: FastifyServerOptions = {}) {
  const app = await versionedApp(t, replacedRoutes(), async (api) => {
    api.get('/users/:id', answer('new'))
    api.delete('/users/:id', answer('new'))
    api.get('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
    api.delete('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
    api.get('/teams/:id', answer('teams'))
  }, {
    fastify: logs === undefined
      ? fastify
      : { ...fastify, logger: { level: 'info', stream: new Writable({ write (chunk, _encoding, next) { logs.push(String(chunk)); next() } }) } },
    versioner: { versionPicker: AccountPinnedVersionPicker, ...options },
    health: true
  })
  await app.ready()
  return app
}

/** Sends the same requests to an app over inject, and over real HTTP. */
function transports (app: FastifyInstance, base: string | undefined) {
  return async (method: string, url: string, headers: Record<string, string>) => {
    if (base === undefined) {
      const response = await app.inject({ method: method as 'GET', url, headers })
      return { status: response.statusCode, body: jsonOf(response), version: response.headers['x-api-version'] }
    }
    const response = await fetch(`${base}${url}`, { method, headers })
    const text = await response.text()
    let body: unknown
    try { body = JSON.parse(text) } catch { body = text }
    return { status: response.status, body: body as Record<string, unknown>, version: response.headers.get('x-api-version') ?? undefined }
  }
}

for (const transport of ['inject', 'real HTTP'] as const) {
  test(`pinned accounts on replaced routes are routed by their pinned version (${transport})`, async (t) => {
    const app = await pinnedApp(t)
    const send = transports(app, transport === 'inject' ? undefined : await listen(app))
    const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra })

    const acme = await send('GET', '/users/1', bearer('sk_acme'))
    t.same([acme.status, acme.body, acme.version], [200, { handler: 'legacy', id: '1', version: '2000-01-01' }, '2000-01-01'], 'acme: pinned to 2000-01-01')
    const globex = await send('GET', '/users/2', bearer('sk_globex'))
    t.same([globex.status, globex.body, globex.version], [200, { handler: 'new', id: '2', version: '2002-01-01' }, '2002-01-01'], 'globex: pinned to 2002-01-01')
    const initech = await send('DELETE', '/users/3', bearer('sk_initech'))
    t.same(initech.body, { handler: 'legacy', id: '3', version: '2001-01-01' }, 'a pinned date between versions waterfalls, on DELETE too')
    const head = await send('HEAD', '/users/4', bearer('sk_acme'))
    t.same([head.status, head.version], [200, '2000-01-01'], 'HEAD follows the GET route of the pinned version')
    const overridden = await send('GET', '/users/5', bearer('sk_acme', { 'x-api-version': '2002-01-01' }))
    t.same(overridden.body, { handler: 'new', id: '5', version: '2002-01-01' }, 'a version in the request wins over the pin')
    const teams = await send('GET', '/teams/6', bearer('sk_acme'))
    t.same(teams.body, { handler: 'teams', id: '6', version: '2000-01-01' }, 'routes not replaced are pinned the same way')

    const anonymous = await send('GET', '/users/7', {})
    t.equal(anonymous.status, 400)
    t.equal(anonymous.body.code, 'FST_VERSIONER_MISSING_API_VERSION')
    const tooOld = await send('GET', '/users/8', bearer('sk_hooli'))
    t.equal(tooOld.status, 400)
    t.match(tooOld.body.message, /^Unsupported API version '1999-01-01' picked for this request \(the request does not name it in the 'x-api-version' header\): it is older than the oldest version\./)
    const legacyPath = await send('GET', '/legacy-users/9', bearer('sk_acme'))
    t.equal(legacyPath.status, 404, 'the legacy path itself is served in no version')
  })
}

test('the picker runs once per versioned request, and never for unversioned routes', async (t) => {
  const app = await pinnedApp(t)
  accounts.calls = 0
  await app.inject({ url: '/users/1', headers: { authorization: 'Bearer sk_acme' } })
  t.equal(accounts.calls, 1, 'a replaced route: picked once, before routing, and reused by the request hook')
  await app.inject({ url: '/teams/1', headers: { authorization: 'Bearer sk_acme' } })
  t.equal(accounts.calls, 2, 'another versioned route: picked once')
  await app.inject({ url: '/health', headers: { authorization: 'Bearer sk_acme' } })
  await app.inject({ url: '/nowhere', headers: { authorization: 'Bearer sk_acme' } })
  t.equal(accounts.calls, 2, 'unversioned routes and 404s never ask the account store')
})

test('a picker that throws or rejects answers a logged 500 for that request only (an Error with a statusCode keeps it)', async (t) => {
  const logs: string[] = []
  const app = await pinnedApp(t, {}, logs)
  const failures = await Promise.all([
    app.inject({ url: '/users/1', headers: { authorization: 'Bearer sk_down' } }),
    app.inject({ url: '/users/2', headers: { authorization: 'Bearer sk_null' } }),
    app.inject({ url: '/teams/3', headers: { authorization: 'Bearer sk_null' } }),
    app.inject({ url: '/users/4', headers: { authorization: 'Bearer sk_revoked' } }),
    app.inject({ url: '/users/5', headers: { authorization: 'Bearer sk_acme' } })
  ])
  const [down, nullOnShared, nullOnOwn, revoked, fine] = failures
  t.equal(down.statusCode, 500)
  t.equal(jsonOf(down).message, 'account store unreachable')
  t.equal(nullOnShared.statusCode, 500)
  t.equal(jsonOf(nullOnShared).code, 'FST_VERSIONER_VERSION_PICKER')
  t.match(jsonOf(nullOnShared).message, /^The API version picker \(versionPicker or apiVersionDefaultValue\) failed with null, which is not an Error\./)
  t.equal(nullOnOwn.statusCode, 500, 'the same on a route that is not replaced (picked in the request hook)')
  t.equal(jsonOf(nullOnOwn).code, 'FST_VERSIONER_VERSION_PICKER')
  t.equal(revoked.statusCode, 401, 'an Error with a statusCode is answered as it is')
  t.equal(jsonOf(revoked).message, 'This API key was revoked.')
  t.same(jsonOf(fine), { handler: 'legacy', id: '5', version: '2000-01-01' }, 'requests in flight at the same time are not affected')

  const entries = logs.map((line) => JSON.parse(line))
  const completed = entries.filter((entry) => entry.msg === 'request completed' && entry.res?.statusCode === 200)
  t.same(completed.map((entry) => entry.apiVersion), ['2000-01-01'], 'the pinned version, picked before routing, is in the request\'s log lines')
  const errors = entries.filter((entry) => entry.level >= 50)
  t.equal(errors.length, 3, 'each 500 is logged once at error level (the 401 is not an error of the server)')
  t.same(errors.map((entry) => entry.err?.message).sort(), ['account store unreachable', jsonOf(nullOnOwn).message, jsonOf(nullOnShared).message].sort())
})

test('a picker that throws synchronously, with anything, answers a 500; a function apiVersionDefaultValue pins too', async (t) => {
  const app = await pinnedApp(t, { versionPicker: ThrowingPicker })
  const shared = await app.inject({ url: '/users/1', headers: { 'x-fail': 'string' } })
  t.equal(shared.statusCode, 500)
  t.equal(jsonOf(shared).code, 'FST_VERSIONER_VERSION_PICKER')
  t.match(jsonOf(shared).message, /failed with 'no account'/)
  const own = await app.inject({ url: '/teams/1', headers: { 'x-fail': 'error' } })
  t.equal(own.statusCode, 500)
  t.equal(jsonOf(own).message, 'picker bug')
  t.same(jsonOf(await app.inject({ url: '/users/1', headers: { 'x-api-version': '2001-01-01' } })), { handler: 'legacy', id: '1', version: '2001-01-01' })

  const byDefault = await pinnedApp(t, {
    versionPicker: undefined,
    apiVersionDefaultValue: async (request) => await accounts.pinnedVersion(request.headers.authorization?.replace(/^Bearer /, '')) ?? '2002-01-01'
  })
  t.same(jsonOf(await byDefault.inject({ url: '/users/1', headers: { authorization: 'Bearer sk_acme' } })), { handler: 'legacy', id: '1', version: '2000-01-01' })
  t.same(jsonOf(await byDefault.inject({ url: '/users/1' })), { handler: 'new', id: '1', version: '2002-01-01' })
  const failing = await byDefault.inject({ url: '/users/1', headers: { authorization: 'Bearer sk_null' } })
  t.equal(failing.statusCode, 500)
  t.equal(jsonOf(failing).code, 'FST_VERSIONER_VERSION_PICKER')
})

/** Requests authenticated by an onRequest hook, as Fastify applications do: the account goes on the request. */
declare module 'fastify' {
  interface FastifyRequest {
    account?: { pinnedVersion: string }
  }
}

/** The `pinnedApp` routes, with an onRequest hook attaching the account of the API key in `authorization`. */
async function authenticatedApp (t: Teardown, options: Partial<FastifyVersionerOptions>) {
  return await versionedApp(t, replacedRoutes(), async (api) => {
    api.get('/users/:id', answer('new'))
    api.delete('/users/:id', answer('new'))
    api.get('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
    api.delete('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
    api.get('/teams/:id', answer('teams'))
  }, {
    versioner: options,
    beforeRoutes: (app) => {
      app.addHook('onRequest', async (request) => {
        if (request.headers.authorization === 'Bearer sk_acme') request.account = { pinnedVersion: '2000-01-01' }
      })
    }
  })
}

for (const transport of ['inject', 'real HTTP'] as const) {
  test(`regression: a pin read from an onRequest hook is never a silent wrong version on a replaced route (${transport})`, async (t) => {
    class AccountPicker extends VersionPicker {
      override pick (request: FastifyRequest): string | undefined {
        return this.requested(request) ?? request.account?.pinnedVersion ?? '2002-01-01'
      }
    }
    for (const [how, options] of [
      ['a function apiVersionDefaultValue', { apiVersionDefaultValue: async (request: FastifyRequest) => request.account?.pinnedVersion ?? '2002-01-01' }],
      ['a custom VersionPicker', { versionPicker: AccountPicker }]
    ] as const) {
      const app = await authenticatedApp(t, options)
      const send = transports(app, transport === 'inject' ? undefined : await listen(app))
      const own = await send('GET', '/teams/1', { authorization: 'Bearer sk_acme' })
      t.same([own.status, own.body, own.version], [200, { handler: 'teams', id: '1', version: '2000-01-01' }, '2000-01-01'],
        `${how}: a route not replaced is served in the pinned version (picked after onRequest)`)
      const replaced = await send('GET', '/users/1', { authorization: 'Bearer sk_acme' })
      t.not(replaced.status, 200, `${how}: on the replaced route, never a success in another version`)
      t.same([replaced.status, replaced.body.code], [500, 'FST_VERSIONER_VERSION_PICKER'], `${how}: a logged 500 with the picker's code`)
      t.match(replaced.body.message, /read request\.account at GET \/users\/:id, where two HEAD routes share the path and method/, `${how}: it names the property and the route`)
      t.match(replaced.body.message, /request\.headers\.authorization/, `${how}: it says what to read instead`)
      const named = await send('GET', '/users/2', { authorization: 'Bearer sk_acme', 'x-api-version': '2000-01-01' })
      t.same(named.body, { handler: 'legacy', id: '2', version: '2000-01-01' }, `${how}: a request naming its version is served (the pin is never read)`)
    }
  })
}

test('regression: a picker returning something that is not a string is a logged 500, never a 400 blaming the client', async (t) => {
  const returned: Record<string, unknown> = { number: 20000101, null: null, array: ['2000-01-01'], object: { version: '2000-01-01' } }
  class GarbagePicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      const kind = request.headers['x-kind']
      return typeof kind === 'string' ? returned[kind] as string : this.requested(request)
    }
  }
  const logs: string[] = []
  for (const [how, options] of [
    ['versionPicker', { versionPicker: GarbagePicker }],
    ['apiVersionDefaultValue', { versionPicker: undefined, apiVersionDefaultValue: async (request: FastifyRequest) => returned[String(request.headers['x-kind'])] as string }]
  ] as const) {
    const app = await pinnedApp(t, options, logs)
    for (const [kind, value] of Object.entries(returned)) {
      for (const url of ['/users/1', '/teams/1']) {
        const response = await app.inject({ url, headers: { 'x-kind': kind } })
        const label = `${how} returning ${kind} on ${url}`
        t.same([response.statusCode, jsonOf(response).code], [500, 'FST_VERSIONER_VERSION_PICKER'], `${label}: a 500 with the picker's code`)
        t.match(jsonOf(response).message, `returned ${describe(value)}, which is not a version string or undefined`, `${label}: it names what the picker returned`)
      }
    }
    t.same(jsonOf(await app.inject({ url: '/teams/1', headers: { 'x-api-version': '2001-01-01' } })).version, '2001-01-01', 'a request naming its version is served')
  }
  const errors = logs.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50)
  t.equal(errors.length, 16, 'each of them is logged at error level')
})

test('regression: the 500 of a picker returning or throwing an account record never hands the record (its secrets) to the client', async (t) => {
  const account = { id: 'acct_1', apiKey: 'sk_live_Q2hhbmdlTWU', version: '2000-01-01' }
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  const failures: Record<string, () => unknown> = {
    returned: () => account,
    thrown: () => { throw account },
    'rejected revoked proxy': async () => { throw proxy }
  }
  class AccountRecordPicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined | Promise<string | undefined> {
      return failures[String(request.headers['x-failure'])]() as string
    }
  }
  const logs: string[] = []
  const app = await pinnedApp(t, { versionPicker: AccountRecordPicker }, logs)
  for (const failure of Object.keys(failures)) {
    for (const url of ['/users/1', '/teams/1']) {
      const response = await app.inject({ url, headers: { 'x-failure': failure } })
      // A revoked proxy, on which `instanceof` throws, made an unhandled rejection: a 500 now (Fastify's logging of its cause fails).
      t.equal(response.statusCode, 500, `${failure} on ${url}: a 500`)
      if (!failure.includes('proxy')) t.equal(jsonOf(response).code, 'FST_VERSIONER_VERSION_PICKER', `${failure} on ${url}: the picker's code`)
      t.notMatch(response.body, /sk_live|acct_1/, `${failure} on ${url}: nothing of the record reaches the client`)
    }
  }
  t.notOk(logs.some((line) => line.includes('sk_live') && !line.includes('"cause"')), 'the log holds the record only as the error\'s cause (what the picker threw)')
})

/** What the 500 says the picker returned: an object (an array too) by its kind alone (see the regression test above). */
function describe (value: unknown): string {
  if (value !== null && typeof value === 'object') return 'an object'
  return String(value)
}

test('regression: a pinned version the API refuses is not said to be in the header the request did not send', async (t) => {
  const app = await pinnedApp(t)
  const tooOld = await app.inject({ url: '/teams/1', headers: { authorization: 'Bearer sk_hooli' } })
  t.equal(tooOld.statusCode, 400)
  t.equal(jsonOf(tooOld).message, "Unsupported API version '1999-01-01' picked for this request (the request does not name it in the 'x-api-version' header): " +
    'it is older than the oldest version. Supported versions: 2002-01-01, 2001-01-01, 2000-01-01.')
  const named = await app.inject({ url: '/teams/1', headers: { 'x-api-version': '1999-01-01', authorization: 'Bearer sk_acme' } })
  t.match(jsonOf(named).message, /^Unsupported API version '1999-01-01' in the 'x-api-version' header: it is older than the oldest version\./, 'a value the request names is still said to be where it was sent')
})

test('regression: a version the request does not name (its account\'s pin) is answered Cache-Control: private, so no shared cache hands it to another account', async (t) => {
  const app = await versionedApp(t, replacedRoutes(), async (api) => {
    api.get('/catalogue', async (request, reply) => {
      reply.header('cache-control', 'public, max-age=60')
      return { version: request.apiVersion }
    })
    api.get('/teams/:id', answer('teams'))
    api.get('/users/:id', answer('new'))
    api.delete('/users/:id', answer('new'))
    api.get('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
    api.delete('/legacy-users/:id', { onlyExistsInOlderVersions: true }, answer('legacy'))
  }, { versioner: { versionPicker: AccountPinnedVersionPicker } })
  await app.ready()
  const get = (url: string, headers: Record<string, string>) => app.inject({ url, headers })
  // Vary names the version header only: a shared cache keyed on it would serve acme's 2000-01-01 to globex.
  const pinned = await get('/catalogue', { authorization: 'Bearer sk_acme' })
  t.equal(pinned.headers['x-api-version'], '2000-01-01')
  t.equal(pinned.headers['cache-control'], 'private, max-age=60', 'the handler\'s lifetime kept, for the client\'s own cache')
  t.equal((await get('/teams/1', { authorization: 'Bearer sk_globex' })).headers['cache-control'], 'private')
  t.equal((await get('/users/1', { authorization: 'Bearer sk_acme' })).headers['cache-control'], 'private', 'a route picked before routing')
  const named = await get('/catalogue', { authorization: 'Bearer sk_acme', 'x-api-version': '2001-01-01' })
  t.equal(named.headers['cache-control'], 'public, max-age=60', 'a version the request names: Vary says it all')
  t.equal((await get('/teams/1', { 'x-api-version': '2001-01-01' })).headers['cache-control'], undefined)
})

test('regression: a pinned answer whose handler adds public to Cache-Control (@fastify/sensible\'s reply.cacheControl) is private only, not private and public', async (t) => {
  const app = await versionedApp(t, replacedRoutes(), async (api) => {
    // sensible's cacheControl appends to the header the request hook already set to private.
    api.get('/catalogue', async (_request, reply) => {
      reply.cacheControl('public').cacheControl('s-maxage', 600).cacheControl('max-age', 60)
      return { ok: true }
    })
    api.get('/teams/:id', async (_request, reply) => reply.cacheControl('public').notFound())
  }, { versioner: { versionPicker: AccountPinnedVersionPicker, partialApp: true }, beforeVersioner: async (instance) => { await instance.register(sensible) } })
  const pinned = await app.inject({ url: '/catalogue', headers: { authorization: 'Bearer sk_acme' } })
  t.equal(pinned.headers['x-api-version'], '2000-01-01')
  t.equal(pinned.headers['cache-control'], 'private, max-age=60', 'no shared cache may store it: public and s-maxage dropped')
  const missing = await app.inject({ url: '/teams/1', headers: { authorization: 'Bearer sk_acme' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['cache-control'], 'private', 'an error answer too')
  const named = await app.inject({ url: '/catalogue', headers: { authorization: 'Bearer sk_acme', 'x-api-version': '2000-01-01' } })
  t.equal(named.headers['cache-control'], 'public, s-maxage=600, max-age=60', 'a version the request names keeps what the handler set')
})

test('regression: before routing, the picker reads the query as the application\'s querystringParser parses it', async (t) => {
  // A parser of nested keys (as qs parses `account[pin]=…`): the picker reads request.query.account.pin.
  const querystringParser = (text: string): Record<string, unknown> => {
    const query: Record<string, Record<string, string>> = {}
    for (const [key, value] of new URLSearchParams(text)) {
      const [, outer, inner] = /^(\w+)\[(\w+)\]$/.exec(key) ?? []
      if (outer !== undefined) (query[outer] ??= {})[inner] = value
    }
    return query
  }
  class QueryPinned extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      return this.requested(request) ?? (request.query as { account?: { pin?: string } }).account?.pin
    }
  }
  const app = await pinnedApp(t, { versionPicker: QueryPinned }, undefined, { routerOptions: { querystringParser } })
  for (const url of ['/teams/1?account[pin]=2000-01-01', '/users/1?account[pin]=2000-01-01']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 200, url)
    t.equal(response.headers['x-api-version'], '2000-01-01', `${url}: the same version on a replaced route as elsewhere`)
  }
})

test('regression: a replaced route is picked before routing as Fastify routes it: with useSemicolonDelimiter, a long parameter (not a 404)', async (t) => {
  for (const useSemicolonDelimiter of [true, false]) {
    const app = await versionedApp(t, sharedPathBundle(), undefined, {
      // Fastify reads it in routerOptions, whose type lacks it.
      fastify: { routerOptions: { useSemicolonDelimiter } as FastifyServerOptions['routerOptions'] }, versioner: { versionPicker: AccountPinnedVersionPicker }
    })
    await app.register(sharedPathRoutes, { prefix: '/api' })
    const response = await app.inject({ url: '/api/items;jsessionid=9', headers: { authorization: 'Bearer sk_acme' } })
    t.equal(response.statusCode, useSemicolonDelimiter ? 200 : 404, `useSemicolonDelimiter ${String(useSemicolonDelimiter)}`)
    if (useSemicolonDelimiter) t.same(jsonOf(response), { handler: 'old', version: '2000-01-01' }, 'the pinned version\'s route')
  }
  const app = await pinnedApp(t, {}, undefined, { routerOptions: { maxParamLength: 500 } })
  const id = 'k'.repeat(300)
  const response = await app.inject({ url: `/users/${id}`, headers: { authorization: 'Bearer sk_acme' } })
  t.equal(response.statusCode, 200, 'a parameter longer than the default maxParamLength, which the app raised')
  t.same(jsonOf(response), { handler: 'legacy', id, version: '2000-01-01' })
})
