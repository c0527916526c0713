import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { endpoint, fastifyVersioner, schema, Version, VersionBundle, type VersionLifecycle } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'
import { caught, rejection } from '../helpers/errors'

/** The instant version 2027-01-01 is released at, in the new build. */
const RELEASE = Date.parse('2027-01-01T09:00:00Z')

const User = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'User' })
const UserWithNickname = Type.Object({ id: Type.String(), name: Type.String(), nickname: Type.String() }, { $id: 'User' })

/** The releases both builds have: 2026-06-01 made /users/:id answer its `name` (2026-01-01 has none). */
function oldReleases (newest: VersionLifecycle = {}): Version[] {
  return [
    new Version('2026-06-01', changeClass('AddRename', [endpoint('/users/:id/rename', ['POST']).didntExist]), newest),
    new Version('2026-01-01')
  ]
}

/**
 * The build before the deploy (`'old'`) and the build that adds 2027-01-01 with `releasedAt` (`'new'`): users get a
 * nickname, and `/invoices` appears. Both builds are served by the same clock.
 */
async function build (t: Teardown, which: 'old' | 'new', clock: () => number, lifecycle: { newest?: VersionLifecycle, releasedAt?: string } = {}): Promise<FastifyInstance> {
  const releasedAt = lifecycle.releasedAt ?? new Date(RELEASE).toISOString()
  const versions = which === 'old'
    ? new VersionBundle(...oldReleases(lifecycle.newest))
    : new VersionBundle(
      new Version('2027-01-01', changeClass('AddNicknameAndInvoices', [
        schema(UserWithNickname).field('nickname').didntExist,
        endpoint('/invoices', ['GET']).didntExist
      ]), { releasedAt }),
      ...oldReleases(lifecycle.newest)
    )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: which === 'old' ? User : UserWithNickname } } },
      async () => ({ id: '1', name: 'Ada', nickname: 'ada' }))
    api.post('/users/:id/rename', async () => ({ ok: true }))
    if (which === 'new') api.get('/invoices', async () => [])
  }, { versioner: { now: clock }, health: true })
  await app.ready()
  return app
}

/**
 * What a client sees of an answer: status, headers (but the date) and body, byte for byte (documents and their ETags
 * too). One thing differs between two builds whatever the clock, and is compared as what it means: a route only the
 * new build has answers its 404 with the version headers of the version it was asked in (the old build has no such
 * route to answer for).
 */
function seen (response: LightMyRequestResponse, url: string): string {
  const { date: _date, ...headers } = response.headers
  if (url.startsWith('/invoices')) return JSON.stringify({ status: response.statusCode, body: response.body })
  return JSON.stringify({ status: response.statusCode, headers, body: response.body })
}

/** Requests a client of the new version may send, to the API and to its documentation. */
const REQUESTS = [
  { url: '/users/1', headers: { 'x-api-version': '2027-01-01' } },
  { url: '/users/1', headers: { 'x-api-version': '2027-03-01' } },
  { url: '/users/1', headers: { 'x-api-version': '2027-01-01.nick' } },
  { url: '/users/1', headers: { 'x-api-version': 'soon' } },
  { url: '/users/1', headers: { 'x-api-version': '2026-06-01' } },
  { url: '/users/1' },
  { url: '/invoices', headers: { 'x-api-version': '2027-01-01' } },
  { url: '/invoices', headers: { 'x-api-version': '2026-06-01' } },
  { url: '/openapi.json' },
  { url: '/openapi.json?version=2027-01-01' },
  { url: '/openapi.json?version=2026-06-01' },
  { url: '/openapi.json', headers: { 'x-api-version': '2027-01-01' } },
  { url: '/openapi.json?version=2027-01-01.nick' },
  { url: '/docs' },
  { url: '/docs?version=2027-01-01' },
  { url: '/docs?version=2026-01-01' },
  { url: '/redoc?version=2027-01-01' },
  { url: '/docs/upgrade?from=2026-01-01&to=2027-01-01' },
  { url: '/docs/upgrade?from=2026-06-01&to=2027-01-01&format=json' },
  { url: '/changelog' }
]

test('two builds side by side across the release instant: before it both answer alike, from it the new build serves 2027-01-01', async (t) => {
  let time = RELEASE - 60_000
  const clock = (): number => time
  const [before, after] = [await build(t, 'old', clock), await build(t, 'new', clock)]
  for (const request of REQUESTS) {
    const [a, b] = [await before.inject(request), await after.inject(request)]
    t.equal(seen(b, request.url), seen(a, request.url), `a minute before: ${request.url} ${JSON.stringify(request.headers ?? {})} is answered as the old build answers it`)
  }
  time = RELEASE - 1
  const lastMillisecond = await after.inject(REQUESTS[0])
  t.equal(lastMillisecond.headers['x-api-version'], '2026-06-01', 'one millisecond before: still served as 2026-06-01')
  t.notOk('nickname' in lastMillisecond.json())

  time = RELEASE
  const served = await after.inject(REQUESTS[0])
  t.equal(served.headers['x-api-version'], '2027-01-01', 'at the instant: served as 2027-01-01')
  t.same(served.json(), { id: '1', name: 'Ada', nickname: 'ada' })
  t.equal((await after.inject({ url: '/users/1', headers: { 'x-api-version': '2027-03-01' } })).headers['x-api-version'], '2027-01-01', 'later dates waterfall to it')
  t.equal((await after.inject({ url: '/users/1' })).statusCode, 400, 'no default: still a 400')
  t.equal((await after.inject(REQUESTS[6])).statusCode, 200, '/invoices exists from 2027-01-01')
  t.equal((await after.inject({ url: '/openapi.json?version=2027-01-01' })).json().info.version, '2027-01-01', 'its document is served')
  t.equal((await after.inject({ url: '/openapi.json' })).json().info.version, '2027-01-01', 'and is the newest')
  t.match((await after.inject({ url: '/docs' })).body, /2027-01-01/, 'the version list shows it')
  t.equal((await after.inject({ url: '/docs/upgrade?from=2026-01-01&to=2027-01-01&format=json' })).json().to, '2027-01-01', 'the upgrade guide leads to it')
  t.match((await after.inject({ url: '/changelog' })).json().versions[0].value, '2027-01-01')
  t.equal((await before.inject(REQUESTS[0])).headers['x-api-version'], '2026-06-01', 'the old build still serves 2026-06-01: finish the rollout before the instant')

  time = RELEASE - 1
  t.equal((await after.inject(REQUESTS[0])).headers['x-api-version'], '2026-06-01', 'a clock set back finds the stretch it is in')
})

test('a release names its instant: a Date or an ISO string with a time zone, on a release; anything else is FST_VERSIONER_STRUCTURE naming the version', async (t) => {
  t.equal(new Version('2027-01-01', { releasedAt: '2027-01-01' }).releasedAt?.toISOString(), '2027-01-01T00:00:00.000Z', 'a date: midnight UTC')
  t.equal(new Version('2027-01-01', { releasedAt: '2027-01-01T10:00:00+01:00' }).releasedAt?.toISOString(), '2027-01-01T09:00:00.000Z')
  const given = new Date(RELEASE)
  const version = new Version('2027-01-01', { releasedAt: given })
  given.setUTCFullYear(2030)
  t.equal(version.releasedAt?.getTime(), RELEASE, 'a Date is copied')
  t.equal(new Version('2027-01-01').releasedAt, undefined)
  for (const [what, releasedAt] of [
    ['a date-time without a time zone (each machine\'s local time)', '2027-01-01T09:00:00'],
    ['words', 'next monday'],
    ['an impossible date', '2027-02-30T00:00:00Z'],
    ['an invalid Date', new Date('nope')],
    ['a number', RELEASE]
  ] as const) {
    const error = caught(() => new Version('2027-01-01', { releasedAt } as unknown as VersionLifecycle))
    t.equal(error?.code, 'FST_VERSIONER_STRUCTURE', what)
    t.match(error?.message, /Version\('2027-01-01'\): releasedAt must be a Date or an ISO 8601 string with a time zone/, `${what}: names the version`)
  }
  t.match(caught(() => new Version('2027-01-01.beta', { channel: 'preview', releasedAt: '2027-01-01' }))?.message, /releasedAt applies to released versions/)
  t.match(caught(() => new Version('2027-01-01', { releasedAt: '2027-01-01', sunsetAt: '2026-12-31' }))?.message, /sunsetAt .* must be after releasedAt/)

  const newerFirst = caught(() => new VersionBundle(new Version('2027-02-01'), new Version('2027-01-01', { releasedAt: '2027-01-01' }), new Version('2026-01-01')))
  t.equal(newerFirst?.code, 'FST_VERSIONER_STRUCTURE', 'a release served from start-up is never newer than one still to come')
  t.match(newerFirst?.message, /'2027-02-01' would be served before the older '2027-01-01'/)
  t.match(caught(() => new VersionBundle(new Version('2027-02-01', { releasedAt: '2027-01-01' }), new Version('2027-01-01', { releasedAt: '2027-01-02' }), new Version('2026-01-01')))?.message,
    /'2027-02-01' would be served before the older '2027-01-01'/)
  t.ok(new VersionBundle(new Version('2027-02-01', { releasedAt: '2027-01-01' }), new Version('2027-01-01', { releasedAt: '2027-01-01' }), new Version('2026-01-01')), 'two at the same instant')
})

test('regression: a release still to come after every older version is gone is FST_VERSIONER_STRUCTURE (a gap where every request answers 410)', async (t) => {
  const gap = caught(() => new VersionBundle(
    new Version('2027-01-01', { releasedAt: '2027-02-01T00:00:00Z' }),
    new Version('2026-01-01', { sunsetAt: '2027-01-15T00:00:00Z', afterSunset: 'gone' })
  ))
  t.equal(gap?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(gap?.message, /'2027-01-01' is released at 2027-02-01T00:00:00\.000Z, after every older version is gone \('2026-01-01' at its sunset, 2027-01-15T00:00:00\.000Z\)/)
  t.ok(new VersionBundle(
    new Version('2027-01-01', { releasedAt: '2027-01-15T00:00:00Z' }),
    new Version('2026-01-01', { sunsetAt: '2027-01-15T00:00:00Z', afterSunset: 'gone' })
  ), 'released at the sunset itself: no gap')
  t.ok(new VersionBundle(
    new Version('2027-01-01', { releasedAt: '2027-02-01T00:00:00Z' }),
    new Version('2026-06-01', { sunsetAt: '2027-01-15T00:00:00Z', afterSunset: 'gone' }),
    new Version('2026-01-01', { sunsetAt: '2027-01-15T00:00:00Z' })
  ), 'an older version still served (sunset, but served after it): no gap')
  t.ok(new VersionBundle(
    new Version('2027-01-01', { releasedAt: '2027-02-01T00:00:00Z' }),
    new Version('2026-01-01', { sunsetAt: '2027-03-01T00:00:00Z', afterSunset: 'gone' })
  ), 'gone after the release: no gap')
})

test('no release served at start-up is FST_VERSIONER_STRUCTURE at registration', async (t) => {
  const versions = new VersionBundle(new Version('2027-01-01', { releasedAt: '2027-01-01' }))
  const early = Fastify()
  t.teardown(() => early.close())
  const error = await rejection(async () => {
    await early.register(fastifyVersioner, { versions, now: () => Date.parse('2027-01-01') - 1 })
    await early.ready()
  })
  t.equal(error?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(error?.message, /No version is served at start-up.*'2027-01-01'/)
  const late = await versionedApp(t, versions, undefined, { versioner: { now: () => Date.parse('2027-01-01') } })
  await late.ready()
  t.pass('after the instant it is an ordinary version')
})

test('a releasedAt in the past is an ordinary version, and an application with nothing scheduled reads no clock per request', async (t) => {
  let reads = 0
  const app = await build(t, 'new', () => { reads++; return RELEASE + 1000 })
  const atStart = reads
  for (let count = 0; count < 5; count++) {
    const response = await app.inject(REQUESTS[0])
    t.equal(response.headers['x-api-version'], '2027-01-01')
  }
  await app.inject({ url: '/openapi.json?version=2027-01-01' })
  await app.inject({ url: '/docs' })
  t.equal(reads, atStart, 'the clock is read at start-up only')
  t.equal(app.versioner.openapi('2027-01-01')?.info && (app.versioner.openapi('2027-01-01')?.info as Record<string, unknown>)['x-released-at'], '2027-01-01T09:00:00.000Z',
    'the document says when it was released, whatever the time')
})

test('before its release, no answer names the version: the successor link of a deprecated newest release waits for it', async (t) => {
  let time = RELEASE - 1000
  const newest = { deprecatedAt: new Date(RELEASE).toISOString() }
  const app = await build(t, 'new', () => time, { newest })
  const linkOf = async (): Promise<unknown> => (await app.inject({ url: '/users/1', headers: { 'x-api-version': '2026-06-01' } })).headers.link
  t.equal(await linkOf(), undefined, 'before: 2026-06-01 is the newest version served, with no successor')
  time = RELEASE
  t.equal(await linkOf(), '</openapi.json?version=2027-01-01>; rel="successor-version"', 'from the instant: its successor')
})

test('the start-up log names the versions served then, and when each release still to come starts', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>) } }
  const versions = new VersionBundle(new Version('2027-01-01', { releasedAt: new Date(RELEASE) }), ...oldReleases())
  const app = await versionedApp(t, versions, undefined, { fastify: { logger: { level: 'info', stream } }, versioner: { now: () => RELEASE - 1, partialApp: true } })
  await app.ready()
  const startup = lines.find((line) => String(line.msg).startsWith('fastify-versioner: serving'))
  t.same(startup?.apiVersions, ['2026-06-01', '2026-01-01'])
  t.same(startup?.pendingVersions, ['2027-01-01'])
  t.match(String(startup?.msg), "serving API versions 2026-06-01, 2026-01-01 (newest first; clients send the version in the 'x-api-version' header); releasing 2027-01-01 from 2027-01-01T09:00:00.000Z")
})

test('regression: a now clock that returns no time is FST_VERSIONER_INVALID_OPTION, never a time after every release instant', async (t) => {
  for (const given of ['nope', undefined, new Date('nope'), Number.NaN, '2027-01-01T09:00:00Z']) {
    const error = await rejection(async () => { await build(t, 'new', (() => given) as unknown as () => number) })
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', `${String(given)}: refused at registration`)
    t.match(error?.message, /Option 'now' must return the current time/)
  }
  let time: unknown = RELEASE - 1000
  const app = await build(t, 'new', () => time as number)
  time = 'nope'
  const response = await app.inject(REQUESTS[0])
  t.equal(response.statusCode, 500, 'a clock that stops giving a time later: a logged 500, not the release still to come')
  t.notMatch(response.body, /nickname/)
})

test('regression: an apiVersionDefaultValue naming a release still to come is refused at registration, not a 400 for every request until then', async (t) => {
  for (const [format, values, value] of [['string', ['v2', 'v1'], 'v2'], ['date', ['2027-01-01.nick', '2026-01-01'], '2027-01-01.nick']] as const) {
    const versions = new VersionBundle(new Version(values[0], { releasedAt: new Date(RELEASE) }), new Version(values[1]))
    const error = await rejection(async () => {
      const app = await versionedApp(t, versions, undefined, { versioner: { now: () => RELEASE - 1, apiVersionFormat: format, apiVersionDefaultValue: value } })
      await app.ready()
    })
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', `${format}: ${value}`)
    t.match(error?.message, `Option 'apiVersionDefaultValue' '${value}' names '${values[0]}', a release not served before its releasedAt (2027-01-01T09:00:00.000Z)`)
  }
  let time = RELEASE - 1
  const dated = await versionedApp(t, new VersionBundle(new Version('2027-01-01', { releasedAt: new Date(RELEASE) }), new Version('2026-01-01')), undefined,
    { versioner: { now: () => time, apiVersionDefaultValue: '2027-01-01' } })
  await dated.ready()
  t.pass('a date is accepted: it is served as the newest version released by then')
  time = RELEASE
  const late = await versionedApp(t, new VersionBundle(new Version('v2', { releasedAt: new Date(RELEASE) }), new Version('v1')), undefined,
    { versioner: { now: () => time, apiVersionFormat: 'string', apiVersionDefaultValue: 'v2' } })
  await late.ready()
  t.pass('and a release already served')
})

test('regression: a brownout before its version\'s releasedAt is FST_VERSIONER_STRUCTURE, not a window that never happens', async (t) => {
  const lifecycle = { releasedAt: '2026-03-01T00:00:00Z', deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01', afterSunset: 'gone' } as const
  const error = caught(() => new Version('2026-01-01', { ...lifecycle, brownouts: [{ start: '2026-02-01T10:00:00Z', end: '2026-03-01T01:00:00Z' }] }))
  t.equal(error?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(error?.message, "Version('2026-01-01'): brownouts[0] (2026-02-01T10:00:00.000Z to 2026-03-01T01:00:00.000Z) starts before releasedAt (2026-03-01T00:00:00.000Z)")
  t.equal(new Version('2026-01-01', { ...lifecycle, brownouts: [{ start: '2026-03-01T00:00:00Z', end: '2026-03-01T01:00:00Z' }] }).brownouts.length, 1, 'from the instant on')
})
