/**
 * `apiVersionFormat: 'month'`: `YYYY-MM` version ids; a later month (or a date inside one) is served as the closest
 * older month, in header and path form; the echo, the documents and the docs pages show the month id; invalid values
 * are a 400 saying `YYYY-MM` is accepted.
 */
import { test } from 'tap'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { HeadVersion, migrateResponseBody, schema, Version, VersionBundle, VersionChange, type FastifyVersionerOptions } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { versionValues } from '../helpers/version-values'

const SEED = Number(process.env.FC_SEED ?? 20261126)
const MONTHS = ['2026-04', '2026-01', '2025-10'] as const

const User = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() })

function bundle (preview?: string): VersionBundle {
  class EmailsWereMissing extends VersionChange {
    description = 'Users have an email.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('email').didntExist]
  }
  class NamesWereDescribed extends VersionChange {
    description = 'The name is no longer described.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ description: 'The name.' })]
  }
  return new VersionBundle(new HeadVersion(), ...(preview === undefined ? [] : [new Version(preview, { channel: 'preview' as const })]),
    new Version(MONTHS[0], EmailsWereMissing), new Version(MONTHS[1], NamesWereDescribed), new Version(MONTHS[2]))
}

async function app (t: Teardown, options: Partial<FastifyVersionerOptions> = {}, versions = bundle()): Promise<FastifyInstance> {
  return await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } }, async (request) => ({ id: request.params.id, name: 'Ada', email: 'a@b.c' }))
  }, { versioner: { apiVersionFormat: 'month', ...options } })
}

/** The month a value is served as (the closest older month), or `undefined` for a 400. */
function expectedMonth (value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(value)
  if (match === null) return undefined
  const month = Number(match[2])
  if (month < 1 || month > 12) return undefined
  if (match[3] !== undefined) {
    const date = new Date(0)
    date.setUTCFullYear(Number(match[1]), month - 1, Number(match[3]))
    if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== Number(match[3])) return undefined
  }
  return MONTHS.find((candidate) => candidate <= value.slice(0, 7))
}

test('a later month, or a date inside a month, is served as the closest older month, in header and path form', async (t) => {
  const header = await app(t)
  const path = await app(t, { apiVersionLocation: 'path' })
  const cases: Array<[string, string]> = [['2026-05', '2026-04'], ['2026-04', '2026-04'], ['2026-05-17', '2026-04'], ['2026-04-30', '2026-04'],
    ['2026-03', '2026-01'], ['2099-12', '2026-04'], ['2025-10-01', '2025-10']]
  for (const [value, served] of cases) {
    for (const [form, response] of [
      ['header', await header.inject({ url: '/users/1', headers: { 'x-api-version': value } })],
      ['path', await path.inject({ url: `/${value}/users/1` })]
    ] as const) {
      t.equal(response.statusCode, 200, `${form} ${value}`)
      t.equal(response.headers['x-api-version'], served, `${form} ${value} is served as ${served}`)
      t.same(Object.keys(response.json()), served === '2026-04' ? ['id', 'name', 'email'] : ['id', 'name'], `${form} ${value}: ${served}'s shape`)
    }
  }
})

test('invalid months are a 400 saying YYYY-MM is accepted; a month before the oldest is too old', async (t) => {
  const api = await app(t)
  const malformed = 'it must be a month written YYYY-MM (or a date YYYY-MM-DD in it).'
  for (const [value, why] of [['2026-13', malformed], ['2026-00', malformed], ['2026-4', malformed],
    ['2026-02-30', 'there is no such day: send a month written YYYY-MM (or a day of the calendar in it).'], ['April', malformed]]) {
    const response = await api.inject({ url: '/users/1', headers: { 'x-api-version': value } })
    t.equal(response.statusCode, 400, value)
    t.equal(response.json().message, `Invalid API version '${value}' in the 'x-api-version' header: ${why} Supported versions: 2026-04, 2026-01, 2025-10.`)
  }
  // A month with a name says months carry none, and what the month alone is served as.
  for (const [value, why] of [
    ['2026-05.x', 'versions carry no name here: send a plain month YYYY-MM (2026-05 is served as 2026-04).'],
    ['2026-04.x', '2026-04 is the version 2026-04, which has no name: send 2026-04.'],
    ['2026-02-15.x', 'versions carry no name here: send a plain month YYYY-MM (2026-02 is served as 2026-01).']
  ]) {
    const response = await api.inject({ url: '/users/1', headers: { 'x-api-version': value } })
    t.equal(response.json().message, `Invalid API version '${value}' in the 'x-api-version' header: ${why} Supported versions: 2026-04, 2026-01, 2025-10.`)
  }
  const old = await api.inject({ url: '/users/1', headers: { 'x-api-version': '2025-09-30' } })
  t.match(old.json().message, /older than the oldest version/)
})

test('month fuzz: any header value or path segment is served as its closest older month or answered 400/404, never a 5xx', async (t) => {
  const header = await app(t)
  const path = await app(t, { apiVersionLocation: 'path' })
  const months = fc.tuple(fc.integer({ min: 2020, max: 2030 }), fc.integer({ min: 0, max: 13 }))
    .map(([year, month]) => `${year}-${String(month).padStart(2, '0')}`)
  const failures: string[] = []
  await fc.assert(fc.asyncProperty(fc.oneof(versionValues(MONTHS), months), async (value) => {
    const sent = value.replace(/[^\x20-\x7e]/g, '')
    const expected = expectedMonth(sent.trim())
    const byHeader = await header.inject({ url: '/users/1', headers: { 'x-api-version': sent } })
    if (byHeader.statusCode >= 500) failures.push(`header ${JSON.stringify(sent)}: ${byHeader.statusCode}`)
    else if (sent.trim() !== '' && byHeader.headers['x-api-version'] !== expected) failures.push(`header ${JSON.stringify(sent)}: ${String(byHeader.headers['x-api-version'])} not ${String(expected)}`)
    const byPath = await path.inject({ url: `/${encodeURIComponent(value)}/users/1` })
    if (byPath.statusCode >= 500) failures.push(`path ${JSON.stringify(value)}: ${byPath.statusCode}`)
    else if (byPath.headers['x-api-version'] !== undefined && byPath.headers['x-api-version'] !== expectedMonth(value)) failures.push(`path ${JSON.stringify(value)}`)
  }), { seed: SEED, numRuns: 300 })
  t.same(failures, [])
})

test('the documents and the docs pages show the month id', async (t) => {
  const api = await app(t)
  const document = await api.inject({ url: '/openapi.json?version=2026-05' })
  t.equal(document.statusCode, 200)
  t.equal(document.json().info.version, '2026-04')
  const parameter = document.json().paths['/users/{id}'].get.parameters.find((each: { name: string }) => each.name === 'x-api-version')
  t.same(parameter.schema, { type: 'string', enum: ['2026-04'], default: '2026-04' }, 'no date format on a month')
  t.equal((await api.inject({ url: '/openapi.json', headers: { 'x-api-version': '2026-02-14' } })).json().info.version, '2026-01')
  const list = await api.inject({ url: '/docs' })
  for (const month of MONTHS) t.match(list.body, `<strong>${month}</strong>`)
  const page = await api.inject({ url: '/docs?version=2026-05-17' })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<title>API: 2026-04: Swagger UI</title>')
  t.equal((await api.inject({ url: '/docs?version=2026-13' })).statusCode, 404)
})

test('month options: released versions are sorted months; a preview carries a name', async (t) => {
  const notMonths = new VersionBundle(new Version('2026-04-01'), new Version('2026-01'))
  await t.rejects(app(t, {}, notMonths).then(async (api) => { await api.ready() }), /every released version must be a month written YYYY-MM \(2026-04\); these are not: 2026-04-01\./)
  const unsorted = new VersionBundle(new Version('2026-01'), new Version('2026-04'))
  await t.rejects(app(t, {}, unsorted).then(async (api) => { await api.ready() }), /Sort them newest first: 2026-04, 2026-01\./)
  await t.rejects(app(t, {}, bundle('2026-07')).then(async (api) => { await api.ready() }), /must not be a plain month/)
  const api = await app(t, {}, bundle('2026-07.preview'))
  t.equal((await api.inject({ url: '/users/1', headers: { 'x-api-version': '2026-07.preview' } })).headers['x-api-version'], '2026-07.preview')
  t.equal((await api.inject({ url: '/users/1', headers: { 'x-api-version': '2026-07' } })).headers['x-api-version'], '2026-04')
  await t.rejects(app(t, { apiVersionDefaultValue: '2026-08' }).then(async (a) => { await a.ready() }).then(() => { throw new Error('accepted') }), /accepted/,
    'a month default is a version this API serves (waterfalled)')
})

test('migrateResponseBody waterfalls months too', async (t) => {
  const versions = bundle()
  t.same(migrateResponseBody(versions, User, { latestBody: { id: '1', name: 'Ada', email: 'e' }, version: '2026-05' }), { id: '1', name: 'Ada', email: 'e' })
  t.same(migrateResponseBody(versions, User, { latestBody: { id: '1', name: 'Ada', email: 'e' }, version: '2026-03-31' }), { id: '1', name: 'Ada' })
  t.throws(() => migrateResponseBody(versions, User, { latestBody: { id: '1', name: 'Ada', email: 'e' }, version: '2025-09' }), /earlier than the oldest version/)
})
