// What a handler returns that JSON writes otherwise than Fastify's serializer (a Date in a union, a toJSON object, a
// Buffer), served to an old version whose converter runs on the route: it answers what HEAD answers (decision 0285).
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type CapturedExchange, type ResponseInfo, type UpgradePreviewEvent, type FastifyVersionerOptions } from '../../plugin'
import { replayTraffic } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { call } from '../helpers/http'
import { captureLogs } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'
import { putBack, type Replaced } from '../../lib/values/written-values'

const SEED = Number(process.env.FC_SEED ?? 20261201)

/** A money class as teams write them: `toJSON` gives its decimal text, `valueOf` its number. */
class Money {
  constructor (readonly cents: number) {}
  toJSON (): string { return (this.cents / 100).toFixed(2) }
  valueOf (): number { return this.cents / 100 }
}

/** A dayjs-like instant: `toJSON` its ISO text, `toString` its UTC text. */
class Instant {
  constructor (readonly date: Date) {}
  toJSON (): string { return this.date.toISOString() }
  toString (): string { return this.date.toUTCString() }
}

type Convert = (response: ResponseInfo) => void

/**
 * Plain Fastify and a versioned app answering `{ v: value(request), note: 'new' }` with `{ v: field, note: string }` on
 * `GET /:kind` for each field, where `2000-01-01`'s converter (`convert`, by default one writing `note`) runs.
 */
async function apps (
  t: Teardown, fields: Record<string, TSchema>, value: (kind: string, id: string) => unknown, convert?: Convert, versioner?: Partial<FastifyVersionerOptions>,
  fastify?: FastifyServerOptions
): Promise<{ plain: FastifyInstance, app: FastifyInstance }> {
  const bodies = Object.fromEntries(Object.entries(fields).map(([kind, field]) => [kind, Type.Object({ v: field, note: Type.String() })]))
  class NoteChanged extends VersionChange {
    description = 'Notes were written otherwise.'
    instructionsToMigrateToPreviousVersion = []
  }
  for (const [kind, body] of Object.entries(bodies)) {
    const method = `note${kind}`
    Object.defineProperty(NoteChanged.prototype, method, { value: convert ?? ((response: ResponseInfo) => { response.body.note = 'old' }), configurable: true })
    ConvertResponseToPreviousVersionFor(body)(NoteChanged.prototype, method, Object.getOwnPropertyDescriptor(NoteChanged.prototype, method) as never)
  }
  const answer = (kind: string, id: string): unknown => ({ v: value(kind, id), note: 'new' })
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', NoteChanged), new Version('2000-01-01')), async (api) => {
    for (const [kind, body] of Object.entries(bodies)) {
      api.get(`/${kind}`, { schema: { response: { 200: body } } }, async (request) => answer(kind, (request.query as { id?: string }).id ?? '') as never)
    }
  }, { versioner, fastify })
  const plain = Fastify()
  t.teardown(() => plain.close())
  for (const [kind, body] of Object.entries(bodies)) {
    plain.get(`/${kind}`, { schema: { response: { 200: body } } }, async (request) => answer(kind, (request.query as { id?: string }).id ?? '') as never)
  }
  return { plain, app }
}

/** Plain Fastify's, HEAD's and the old version's answers to `url`, as `status body`, the old one's note as HEAD's. */
async function answers (plain: FastifyInstance, app: FastifyInstance, url: string): Promise<{ plain: string, head: string, old: string }> {
  const [fastify, head, old] = await Promise.all([plain.inject(url), call(app, '2001-01-01', url), call(app, '2000-01-01', url)])
  const text = (response: { statusCode: number, body: string }): string => `${response.statusCode} ${response.body}`
  return { plain: text(fastify), head: text(head), old: text(old).replace('"note":"old"', '"note":"new"') }
}

const at = new Date('2024-03-05T07:08:09.123Z')
const timeOrNull = Type.Union([Type.String({ format: 'time' }), Type.Null()])

test('regression: a Date in a union with a time member (nullable), which HEAD writes as its time, was a 500 for old clients whose converter ran', async (t) => {
  const fields = {
    nullable: timeOrNull,
    list: Type.Array(timeOrNull),
    record: Type.Record(Type.String(), timeOrNull),
    orNumber: Type.Union([Type.String({ format: 'time' }), Type.Number()]),
    isoTime: Type.Union([Type.String({ format: 'iso-time' }), Type.Null()])
  }
  const values: Record<string, unknown> = { nullable: at, list: [at, null], record: { a: at }, orNumber: at, isoTime: at }
  const { plain, app } = await apps(t, fields, (kind) => values[kind])
  for (const kind of Object.keys(fields)) {
    const found = await answers(plain, app, `/${kind}`)
    t.equal(found.head, found.plain, `HEAD answers as plain Fastify (${kind})`)
    t.match(found.head, /^200 /, `plain Fastify writes it (${kind})`)
    t.equal(found.old, found.head, `the old client gets HEAD's bytes (${kind})`)
  }
})

test('regression: a value JSON writes by toJSON (Money, an instant class, a Buffer) where HEAD writes it its own way reached old clients otherwise', async (t) => {
  const fields = { money: Type.String(), moneyOrNull: Type.Union([Type.String(), Type.Null()]), instant: Type.String({ format: 'date-time' }), buffer: Type.String() }
  const values: Record<string, () => unknown> = { money: () => new Money(1999), moneyOrNull: () => new Money(5), instant: () => new Instant(at), buffer: () => Buffer.from('hi') }
  const { plain, app } = await apps(t, fields, (kind) => values[kind]())
  for (const kind of Object.keys(fields)) {
    const found = await answers(plain, app, `/${kind}`)
    t.equal(found.head, found.plain, `HEAD answers as plain Fastify (${kind}: ${found.plain})`)
    t.equal(found.old, found.head, `the old client gets what HEAD answers (${kind})`)
  }
})

test('regression: a list of such values a converter only reordered in place (reverse, splice) was written from the copy\'s text: a 500, or the toJSON text, where HEAD writes the values', async (t) => {
  const later = new Date('2024-03-05T10:11:12.456Z')
  const fields = { times: Type.Array(timeOrNull), money: Type.Array(Type.String()), instants: Type.Array(Type.Union([Type.String(), Type.Null()])) }
  const lists: Record<string, () => unknown[]> = {
    times: () => [at, later, null, at],
    money: () => [new Money(1999), new Money(5), new Money(1999)],
    instants: () => [new Instant(at), null, new Instant(later)]
  }
  // `?id=` names the change the old client's converter makes; plain Fastify answers the list so changed.
  const changes: Record<string, (list: unknown[]) => void> = { reverse: (list) => list.reverse(), 'drop first': (list) => list.splice(0, 1), sort: (list) => list.sort() }
  for (const [name, change] of Object.entries(changes)) {
    const { plain, app } = await apps(t, fields, (kind, id) => {
      const list = lists[kind]()
      if (id === 'changed') change(list)
      return list
    }, (response) => { change(response.body.v as unknown[]) })
    for (const kind of Object.keys(fields)) {
      const expected = await plain.inject(`/${kind}?id=changed`)
      t.match(expected.statusCode, 200, `plain Fastify writes the list (${kind}, ${name})`)
      const old = await call(app, '2000-01-01', `/${kind}`)
      if (name === 'sort') {
        // Sorting the copy's texts orders the values otherwise than sorting the handler's: the old client gets the
        // values HEAD writes, in the copy's order.
        t.equal(old.statusCode, 200, `${kind}, sort: ${old.body}`)
        continue
      }
      t.equal(`${old.statusCode} ${old.body}`, `${expected.statusCode} ${expected.body}`, `the old client gets the values as HEAD writes them, in the converter's order (${kind}, ${name})`)
    }
  }
})

/** A class teams give a `toString` and no `toJSON` (an identifier, a slug): the serializer writes its text under a string. */
class Slug {
  constructor (readonly parts: string[]) {}
  toString (): string { return this.parts.join('-') }
}

test('regression: a class instance without toJSON (toString only, a Uint8Array, a Map, an Error) under a string, which HEAD writes as its text, reached old clients as "[object Object]"', async (t) => {
  const fields = {
    string: Type.String(), list: Type.Array(Type.String()), record: Type.Record(Type.String(), Type.String()), nested: Type.Object({ inner: Type.String() }), joined: Type.String()
  }
  const instances: Record<string, () => unknown> = {
    slug: () => new Slug(['a', 'b']), bytes: () => new Uint8Array([104, 105]), map: () => new Map([['a', 1]]), error: () => new Error('boom'), pattern: () => /a+b/u
  }
  const pending = new Map<string, unknown>()
  const { plain, app } = await apps(t, fields, (_kind, id) => pending.get(id))
  for (const [name, make] of Object.entries(instances)) {
    // A list where the schema says string is written as its items' text, joined.
    const value = { string: make(), list: [make(), 'x'], record: { a: make() }, nested: { inner: make() }, joined: [make(), make()] }
    for (const kind of Object.keys(fields)) {
      pending.set(name, value[kind as keyof typeof value])
      const found = await answers(plain, app, `/${kind}?id=${name}`)
      t.match(found.plain, /^200 /, `plain Fastify writes it (${kind}, ${name})`)
      t.equal(found.head, found.plain, `HEAD answers as plain Fastify (${kind}, ${name})`)
      t.equal(found.old, found.head, `the old client gets HEAD's text (${kind}, ${name}: ${found.head})`)
    }
  }
})

test('regression: a value HEAD\'s own serializer refuses answered old clients whose converter ran the versioner\'s coded 500, logged as a converter\'s fault', async (t) => {
  const fields = {
    integer: Type.Integer(),
    dateTimeOrNull: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    slugOrNull: Type.Union([Type.String(), Type.Null()]),
    list: Type.Array(Type.Integer())
  }
  const values: Record<string, () => unknown> = { integer: () => 'twelve', dateTimeOrNull: () => new Instant(at), slugOrNull: () => new Slug(['a']), list: () => [1, 'two'] }
  const logs = captureLogs()
  const { plain, app } = await apps(t, fields, (kind) => values[kind](), undefined, undefined, { logger: { level: 'error', stream: logs.stream } })
  for (const kind of Object.keys(fields)) {
    logs.entries.length = 0
    const [fastify, head, old] = await Promise.all([plain.inject(`/${kind}`), call(app, '2001-01-01', `/${kind}`), call(app, '2000-01-01', `/${kind}`)])
    t.equal(fastify.statusCode, 500, `plain Fastify refuses it (${kind})`)
    t.equal(head.body, fastify.body, `HEAD answers plain Fastify's 500 (${kind})`)
    t.equal(old.statusCode, 500)
    t.equal(old.body, head.body, `the old client gets HEAD's 500, not the versioner's code (${kind}: ${old.body})`)
    const message = (JSON.parse(head.body) as { message: string }).message
    const errors = logs.entries.filter((entry) => entry.level >= 50)
    t.same(errors.map((entry) => [entry.apiVersion, entry.err?.message]).sort(), [['2000-01-01', message], ['2001-01-01', message]], `the serializer's error is logged once per request (${kind})`)
  }
})

test('a value a converter writes that the old schema refuses (HEAD writes the handler\'s) is still the coded 500, logged as the converter\'s fault', async (t) => {
  const logs = captureLogs()
  const { app } = await apps(t, { integer: Type.Integer() }, () => 12, (response) => { response.body.v = 'twelve' }, undefined, { logger: { level: 'error', stream: logs.stream } })
  const old = await call(app, '2000-01-01', '/integer')
  t.equal(old.statusCode, 500)
  t.equal(old.json().code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE')
  t.match(logs.entries.map((entry) => entry.msg).join('\n'), /does not fit that version's schema/)
})

test('a field of a root a converter rebuilds (a spread) is still written as HEAD writes it, and converters see what HEAD writes', async (t) => {
  const seen: unknown[] = []
  const values: Record<string, unknown> = { nullable: at, buffer: Buffer.from('hi') }
  const { app } = await apps(t, { nullable: timeOrNull, buffer: Type.String() }, (kind) => values[kind], (response) => {
    seen.push(response.body.v)
    response.body = { ...response.body, note: 'old' }
  })
  const head = await call(app, '2001-01-01', '/nullable')
  const old = await call(app, '2000-01-01', '/nullable')
  t.equal(old.statusCode, 200, old.body)
  t.equal(old.body, head.body.replace('"note":"new"', '"note":"old"'), 'the rebuilt root keeps the Date for the serializer')
  t.same(JSON.parse((await call(app, '2000-01-01', '/buffer')).body), { v: 'hi', note: 'old' }, 'a Buffer no converter changed is its text, as HEAD writes it')
  t.same(seen, [head.json().v, 'hi'], 'the converter saw the time and the Buffer\'s text HEAD writes')
})

test('a converter writing the field in place of a Date or a Buffer has its value sent', async (t) => {
  const { app } = await apps(t, { nullable: timeOrNull, buffer: Type.String() }, (kind) => kind === 'buffer' ? Buffer.from('hi') : at, (response) => {
    response.body.v = response.body.v === 'hi' ? 'bytes' : '10:11:12Z'
  })
  t.same(JSON.parse((await call(app, '2000-01-01', '/nullable')).body), { v: '10:11:12Z', note: 'new' })
  t.same(JSON.parse((await call(app, '2000-01-01', '/buffer')).body), { v: 'bytes', note: 'new' })
})

test('a model whose toJSON gives an object (an ORM document) is converted as that object: the converter\'s changes to it are sent', async (t) => {
  class Document {
    constructor (private readonly fields: Record<string, unknown>) {}
    toJSON (): Record<string, unknown> { return { ...this.fields } }
  }
  const Person = Type.Object({ fullName: Type.String() })
  const { app } = await apps(t, { person: Person, people: Type.Array(Person) }, (kind) => kind === 'person' ? new Document({ fullName: 'Ada' }) : [new Document({ fullName: 'Alan' })], (response) => {
    const people = Array.isArray(response.body.v) ? response.body.v : [response.body.v]
    for (const person of people) person.fullName = `${String(person.fullName)} L.`
  })
  t.same(JSON.parse((await call(app, '2000-01-01', '/person')).body), { v: { fullName: 'Ada L.' }, note: 'new' })
  t.same(JSON.parse((await call(app, '2000-01-01', '/people')).body), { v: [{ fullName: 'Alan L.' }], note: 'new' })
})

/** What is published on `channel` while the test runs. */
function published<T> (t: Teardown, channel: string): T[] {
  const seen: T[] = []
  const listener = (message: unknown): void => { seen.push(message as T) }
  diagnosticsChannel.subscribe(channel, listener)
  t.teardown(() => diagnosticsChannel.unsubscribe(channel, listener))
  return seen
}

test('regression: replay and the upgrade preview of a Date in a union with a time member, a Buffer or an instance under a string gave what serving no longer answers', async (t) => {
  const exchanges = published<CapturedExchange>(t, 'fastify-versioner:exchange')
  const previews = published<UpgradePreviewEvent>(t, 'fastify-versioner:upgrade-preview')
  const values: Record<string, unknown> = { nullable: at, list: [null, at], buffer: Buffer.from('hi'), slug: new Slug(['a', 'b']), bytes: [new Uint8Array([104])] }
  const { app } = await apps(t, { nullable: timeOrNull, list: Type.Array(timeOrNull), buffer: Type.String(), slug: Type.String(), bytes: Type.Array(Type.String()) },
    (kind) => values[kind], undefined, { captureExchanges: {}, upgradePreview: { access: () => true } })
  for (const kind of ['nullable', 'list', 'buffer', 'slug', 'bytes']) {
    const served = await app.inject({ url: `/${kind}`, headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
    const old = await call(app, '2000-01-01', `/${kind}`)
    t.equal(old.statusCode, 200)
    t.same(previews.at(-1)?.targetBody, old.json(), `the preview renders what the old version answers (${kind})`)
    t.same(previews.at(-1)?.patch, [{ op: 'replace', path: '/note', value: 'old' }], `its patch changes the note alone (${kind}: ${served.body})`)
  }
  t.same(exchanges.map((exchange) => exchange.route.url), ['/nullable', '/list', '/buffer', '/slug', '/bytes'], 'a Buffer or an instance under a string is recorded as the text HEAD writes')
  const report = await replayTraffic(app, { exchanges: exchanges.map((exchange, index) => ({ line: index + 1, exchange })) })
  t.same(report.findings.map((finding) => finding.text), [], 'replay gives what serving answered')
})

/** Values JSON and Fastify's serializer write alike or otherwise, or refuse. */
const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01') }),
  fc.integer({ min: -1e6, max: 1e6 }).map((cents) => new Money(cents)),
  fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => new Instant(date)),
  fc.string({ maxLength: 6 }).map((text) => Buffer.from(text)),
  // Objects without toJSON the serializer writes by toString (or refuses) where the schema says string or number.
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }).map((parts) => new Slug(parts)),
  fc.uint8Array({ maxLength: 3 }),
  fc.float32Array({ maxLength: 2 }),
  fc.webUrl().map((text) => new URL(text)),
  fc.constantFrom(() => new Map([['a', 1]]), () => new Set(), () => new Error('boom'), () => /a+/g, () => Object.assign(Object.create(null), { a: 1 })).map((make) => make()),
  fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(2 ** 53 + 2, -0, 1e21, '12', '12.5', 'true', '', '07:08:09', '07:08:09Z', '2024-03-05', true, false, null, undefined),
  fc.string({ maxLength: 8 })
)
const values = fc.oneof(
  { weight: 4, arbitrary: leaf },
  fc.array(leaf, { maxLength: 3 }),
  fc.array(fc.record({ s: leaf, i: leaf }, { requiredKeys: ['s'] }), { maxLength: 2 }),
  fc.sparseArray(leaf, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'b'), leaf, { maxKeys: 2, noNullPrototype: true })
)

test('property: any such value, in any field, answers an old client whose converter runs what it answers HEAD (plain Fastify\'s status and bytes, a 500\'s too)', async (t) => {
  const fields: Record<string, TSchema> = {
    string: Type.String(),
    date: Type.String({ format: 'date' }),
    time: Type.String({ format: 'time' }),
    dateTime: Type.String({ format: 'date-time' }),
    timeOrNull,
    dateOrNull: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    dateTimeOrNull: Type.Union([Type.Null(), Type.String({ format: 'date-time' })]),
    stringOrNull: Type.Union([Type.String(), Type.Null()]),
    number: Type.Number(),
    numberOrNull: Type.Union([Type.Number(), Type.Null()]),
    integer: Type.Integer(),
    integerOrNull: Type.Union([Type.Integer(), Type.Null()]),
    boolean: Type.Boolean(),
    numberOrString: Type.Union([Type.Number(), Type.String()]),
    times: Type.Array(timeOrNull),
    numbers: Type.Array(Type.Number()),
    dates: Type.Record(Type.String(), Type.Union([Type.String({ format: 'date' }), Type.Null()])),
    unknown: Type.Unknown(),
    objects: Type.Array(Type.Object({ s: Type.String(), i: Type.Optional(Type.Integer()) }))
  }
  const pending = new Map<string, unknown>()
  const { plain, app } = await apps(t, fields, (_kind, id) => pending.get(id))
  let next = 0
  await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(fields)), values, async (kind, value) => {
    const id = String(next++)
    pending.set(id, value)
    const found = await answers(plain, app, `/${kind}?id=${id}`)
    pending.delete(id)
    t.equal(found.head, found.plain, `HEAD answers ${kind} as plain Fastify`)
    if (found.old !== found.head) t.fail(`${kind}: HEAD ${found.head}, old ${found.old}`)
    return found.old === found.head
  }), { seed: SEED, numRuns: 400 })
})

test('regression: where the application chose its serializer, an old client whose converter wrote what it refuses got a 500 blaming a HEAD value HEAD writes (its schema\'s serializer asked)', async (t) => {
  const Body = Type.Object({ count: Type.Integer(), note: Type.String() })
  class TotalsWereBig extends VersionChange {
    description = 'Notes were numbers.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Body)
    note (response: ResponseInfo): void { response.body.note = 10n }
  }
  const logs = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', TotalsWereBig), new Version('2000-01-01')), async (api) => {
    // HEAD answers `count` as text: the application's serializer (JSON) writes it, the schema's would refuse it.
    api.setReplySerializer((payload) => JSON.stringify(payload))
    api.get('/totals', { schema: { response: { 200: Body } } }, async () => ({ count: 'twelve', note: 'new' }) as never)
  }, { fastify: { logger: { level: 'error', stream: logs.stream } } })
  const head = await call(app, '2001-01-01', '/totals')
  t.same([head.statusCode, head.json()], [200, { count: 'twelve', note: 'new' }], 'HEAD writes it with the chosen serializer')
  const old = await call(app, '2000-01-01', '/totals')
  t.equal(old.statusCode, 500)
  t.equal(old.json().code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', `the converter's fault, not HEAD's: ${old.body}`)
  t.match(logs.entries.map((entry) => entry.msg).join('\n'), /a response converter produced data it rejects/)
  t.notMatch(logs.entries.map((entry) => entry.err?.message ?? '').join('\n'), /cannot be converted to an integer/, 'no HEAD refusal is logged')
})

test('regression: a value HEAD\'s own serializer refuses answered an old version whose schema differs but no converter runs the versioner\'s coded 500, logged as the version\'s fault', async (t) => {
  const Body = Type.Object({ count: Type.Integer(), name: Type.Optional(Type.String()) })
  const logs = captureLogs()
  const pending = new Map<string, unknown>()
  const app = await versionedApp(t, new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('NamesAdded', [schema(Body).field('name').didntExist])),
    new Version('2000-01-01')
  ), async (api) => {
    api.get('/counts', { schema: { response: { 200: Body } } }, async (request) => pending.get((request.query as { id: string }).id) as never)
  }, { fastify: { logger: { level: 'error', stream: logs.stream } } })
  const plain = Fastify({ logger: false })
  t.teardown(() => plain.close())
  plain.get('/counts', { schema: { response: { 200: Body } } }, async (request) => pending.get((request.query as { id: string }).id) as never)
  pending.set('text', { count: 'twelve', name: 'n' })
  logs.entries.length = 0
  const [fastify, head, old] = await Promise.all([plain.inject('/counts?id=text'), call(app, '2001-01-01', '/counts?id=text'), call(app, '2000-01-01', '/counts?id=text')])
  t.equal(fastify.statusCode, 500, 'plain Fastify refuses a text where an integer is required')
  t.equal(head.body, fastify.body)
  t.equal(old.statusCode, 500)
  t.equal(old.body, head.body, `the old client gets HEAD's 500, not the versioner's code: ${old.body}`)
  t.notMatch(logs.entries.map((entry) => entry.msg).join('\n'), /does not fit that version's schema/, 'no version is blamed')
})

test('a long list a converter reversed: each text\'s dates are put back in turn, where they now sit', async (t) => {
  // Two texts, each written for 100,000 dates: reversed, none sits at its index. (Its cost, once quadratic: docs/benchmarks.md.)
  const length = 200_000
  const list: unknown[] = []
  const replaced: Replaced[] = []
  for (let index = 0; index < length; index++) {
    const text = index < length / 2 ? '2024-03-05' : '2024-03-06'
    list.push(text)
    replaced.push([list as unknown as Record<string, unknown>, String(index), text, new Date(index)])
  }
  list.reverse()
  const root = { v: list }
  putBack(replaced, root, root)
  t.equal((list[0] as Date).getTime(), length / 2, 'the first date written as the reversed list\'s first text is put back first')
  t.equal((list.at(-1) as Date).getTime(), length / 2 - 1, 'and the last')
  t.ok(list.every((value) => value instanceof Date), 'every date is put back')
})
