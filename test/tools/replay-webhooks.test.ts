// The webhook renders of recorded traffic replayed (decision 0238): read from the traffic file beside the exchanges,
// rendered again through the converters (a converter changed is a finding on the delivery, naming the webhook, the
// version and the place), and with --handlers compared with what the handlers of fresh applications render (a
// handler building the event otherwise is a finding; so is a Unix time in seconds made milliseconds; the correct
// application is none, its ids and times included).
import { test } from 'tap'
import { randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type ResponseInfo } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'

const NoteInput = Type.Object({ name: Type.String() })
const Note = Type.Object({ id: Type.String(), name: Type.String() })
const NoteEvent = Type.Object({
  id: Type.String(), type: Type.Literal('note.created'), created: Type.Integer({ description: 'Unix time, in seconds.' }), livemode: Type.Optional(Type.Boolean()), data: Note, url: Type.String({ description: 'Where the note is read.' })
})

/** What a team changed. */
interface Changes {
  /** The converter upper-cases the old title (a converter mistake). */
  readonly upperTitle?: boolean
  /** The handler builds the event's time in milliseconds (a handler mistake). */
  readonly milliseconds?: boolean
  /** The handler builds the event's time in milliseconds multiplied by 1000 again (a helper called the wrong way). */
  readonly microseconds?: boolean
  /** The handler builds the event from the input, named otherwise (a handler mistake). */
  readonly trimmedName?: boolean
  /** The handler adds a field to every version's events (as the policy allows). */
  readonly livemode?: boolean
  /** The handler writes the note's URL in another form (a handler mistake in a string holding an id). */
  readonly v2Url?: boolean
  /** The handler links the event's own id where the note's was meant (`/notes/evt_…`: another id in the string). */
  readonly eventIdInUrl?: boolean
}

/** A builder of fresh notes applications: POST /notes renders note.created for a subscriber pinned to each version. */
function notes (changes: Changes = {}): () => Promise<FastifyInstance> {
  class NameWasTitle extends VersionChange {
    description = 'name was title.'
    instructionsToMigrateToPreviousVersion = [schema(Note).field('name').had({ name: 'title' })]

    @ConvertResponseToPreviousVersionFor(Note)
    titleDown (response: ResponseInfo) {
      const { name, ...rest } = response.body as Record<string, unknown>
      response.body = { ...rest, title: changes.upperTitle === true ? String(name).toUpperCase() : name }
    }
  }
  return async () => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
    const subscribers = ['2001-01-01', '2000-01-01'].map((version) => ({ id: `ep_${version}`, version, secret: `whsec_${'A'.repeat(32)}` }))
    const app = Fastify()
    await app.register(fastifyVersioner, { versions, captureExchanges: { everyVersion: true } })
    app.versioner.webhooks.add({ name: 'note.created', body: NoteEvent })
    await app.register(versioned(async (api) => {
      api.post('/notes', { schema: { body: NoteInput, response: { 200: Note } } }, async (request) => {
        const note = { id: randomUUID(), name: request.body.name }
        const data = changes.trimmedName === true ? { ...note, name: note.name.trim() } : note
        const eventId = `evt_${randomUUID()}`
        const event = {
          id: eventId, type: 'note.created' as const, created: changes.microseconds === true ? Date.now() * 1000 : changes.milliseconds === true ? Date.now() : Math.floor(Date.now() / 1000), data, url: `${changes.v2Url === true ? '/v2' : ''}/notes/${changes.eventIdInUrl === true ? eventId : note.id}`, ...(changes.livemode === true ? { livemode: true } : {})
        }
        await app.versioner.webhooks.render('note.created', event, { subscribers })
        return note
      })
      // 3 ms later: the two fresh apps never answer in one millisecond, so the place is one they answer differently too.
      api.get('/clock', { schema: { response: { 200: Type.Object({ now: Type.Integer({ description: 'Unix time, in seconds.' }) }) } } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 3))
        return { now: changes.milliseconds === true ? Date.now() : Math.floor(Date.now() / 1000) }
      })
    }))
    return app
  }
}

/** The exchanges and renders of clients of every version of the correct notes app (one a line). */
async function notesTraffic (changes: Changes = {}): Promise<string> {
  const app = await notes(changes)()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  try {
    for (const [version, name] of [['2000-01-01', 'Pen'], ['2001-01-01', ' Ink '], ['2001-01-01', 'Cap']]) {
      await app.inject({ method: 'POST', url: '/notes', headers: { 'x-api-version': version }, payload: { name } })
    }
    await app.inject({ method: 'GET', url: '/clock', headers: { 'x-api-version': '2001-01-01' } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record)
    await app.close()
  }
  return lines.join('\n')
}

/** The findings of the traffic replayed on a notes app with `changes` (through the handlers too, with `handlers`). */
async function notesFindings (traffic: string, changes: Changes, handlers = false): Promise<string[]> {
  const build = notes(changes)
  const app = await build()
  try {
    await app.ready()
    const report = await replayTraffic(app, readTraffic(traffic), handlers ? { handlers: build } : {})
    return report.findings.map((finding) => finding.text)
  } finally {
    await app.close()
  }
}

test('the traffic file: a render line is read beside the exchanges; a malformed one is reported as such', async (t) => {
  const traffic = await notesTraffic()
  const read = readTraffic(traffic)
  t.equal(read.exchanges.length, 4)
  t.equal(read.deliveries.length, 3)
  t.same(read.problems, [])
  const [first] = read.deliveries
  t.equal(first.line, 1, 'the render is published before the exchange it is part of')
  t.same(first.delivery.webhook, { name: 'note.created', method: 'POST' })
  t.same(first.delivery.deliveries.map((delivery) => delivery.version), ['2001-01-01', '2000-01-01'])
  const bad = readTraffic([
    JSON.stringify({ webhook: { name: 'note.created' }, event: {}, deliveries: [] }),
    JSON.stringify({ webhook: { name: 'note.created', method: 'POST' }, event: {}, deliveries: [{ body: {} }] }),
    JSON.stringify({ webhook: { name: 'note.created', method: 'POST' }, deliveries: [] })
  ].join('\n'))
  t.same(bad.deliveries, [])
  t.same(bad.problems.map((problem) => problem.message), [
    'a webhook render, but its webhook is not { name, method }',
    'a webhook render, but its deliveries[0] is not { version, body }',
    'a webhook render, but it has no event'
  ])
})

test('replay: the recorded renders render as recorded on the correct app; a converter changed is a finding on each delivery it changes', async (t) => {
  const traffic = await notesTraffic()
  const build = notes()
  const app = await build()
  await app.ready()
  const report = await replayTraffic(app, readTraffic(traffic))
  await app.close()
  t.same(report.findings, [])
  t.equal(report.deliveries, 6, 'two versions of three renders')
  const findings = await notesFindings(traffic, { upperTitle: true })
  // The 2000-01-01 body of each render (the exchanges' answers are Notes too: a finding each).
  const deliveries = findings.filter((text) => text.includes('webhook note.created'))
  t.equal(deliveries.length, 3, findings.join('\n'))
  t.match(deliveries[0], /^line 1: webhook note\.created \(2000-01-01\): delivery body\/data\/title: the subscribers received 'Pen', the converters now give 'PEN'; changed last by NameWasTitle/)
})

test('replay --handlers: the correct application renders every recorded delivery as recorded, its ids mapped and its times left out', async (t) => {
  const traffic = await notesTraffic()
  t.same(await notesFindings(traffic, {}, true), [])
  t.same(await notesFindings(traffic, { livemode: true }, true), [], 'a field added to every version\'s events, as the policy allows')
})

test('replay --handlers: a handler building the event otherwise is a finding on the delivery; so is a Unix time in seconds made milliseconds', async (t) => {
  const traffic = await notesTraffic()
  const trimmed = await notesFindings(traffic, { trimmedName: true }, true)
  t.match(trimmed, [/^line 3: webhook note\.created \(2001-01-01\): delivery body\/data\/name: the subscribers received ' Ink ', the handlers of a fresh application now render 'Ink'\.$/])
  const milliseconds = await notesFindings(traffic, { milliseconds: true }, true)
  t.equal(milliseconds.length, 7, milliseconds.join('\n'))
  t.match(milliseconds[0], /^line 1: webhook note\.created \(2001-01-01\): delivery body\/created: the subscribers received \d{10}, the handlers of a fresh application now render \d{13}\.$/)
  // An answer's Unix time too: both fresh apps read the clock (in milliseconds), which was left out as noise.
  t.match(milliseconds[6], /^line 7: GET \/clock \(2001-01-01\): answer body\/now: the client received \d{10}, the handlers of a fresh application now answer \d{13}\.$/)
})

test('replay --handlers: a Unix time multiplied by 1000 once too often (microseconds) is a finding on the delivery; recorded so, it is a time of the replay', async (t) => {
  const microseconds = await notesFindings(await notesTraffic(), { microseconds: true }, true)
  t.equal(microseconds.length, 6, microseconds.join('\n'))
  t.match(microseconds[0], /^line 1: webhook note\.created \(2001-01-01\): delivery body\/created: the subscribers received \d{10}, the handlers of a fresh application now render \d{16}\.$/)
  // An application whose events hold microseconds, replayed on itself: its times are the replay's, none a change.
  t.same(await notesFindings(await notesTraffic({ microseconds: true }), { microseconds: true }, true), [])
})

test('replay --handlers: a string of a delivery holding an id is compared with the id mapped: a URL written in another form is a finding', async (t) => {
  const traffic = await notesTraffic()
  const findings = await notesFindings(traffic, { v2Url: true }, true)
  t.equal(findings.length, 6, findings.join('\n'))
  t.match(findings[0], /^line 1: webhook note\.created \(2001-01-01\): delivery body\/url: the subscribers received '\/notes\/[0-9a-f-]{36}', the handlers of a fresh application now render '\/v2\/notes\/[0-9a-f-]{36}'\.$/)
})

test('replay --handlers: a string of a delivery naming another id than the known one is a finding, never noise (the two applications\' ids differ there)', async (t) => {
  const findings = await notesFindings(await notesTraffic(), { eventIdInUrl: true }, true)
  t.equal(findings.length, 6, findings.join('\n'))
  t.match(findings[0], /^line 1: webhook note\.created \(2001-01-01\): delivery body\/url: the subscribers received '\/notes\/[0-9a-f-]{36}', the handlers of a fresh application now render '\/notes\/evt_[0-9a-f-]{36}'\.$/)
})

test('replay --handlers: a recorded delivery whose request the file does not hold is not replayed, not a finding', async (t) => {
  const lines = (await notesTraffic()).split('\n')
  // The last client's exchange left out (its render, line 5, kept).
  const traffic = lines.slice(0, 5).join('\n')
  const build = notes()
  const app = await build()
  await app.ready()
  t.teardown(() => app.close())
  const report = await replayTraffic(app, readTraffic(traffic), { handlers: build })
  t.same(report.findings, [])
  t.same(report.notReplayable.map((item) => [item.line, item.route, item.version]), [[5, 'webhook note.created', '2001-01-01'], [5, 'webhook note.created', '2000-01-01']])
  t.match(report.notReplayable[0].message, /no request the replay sent rendered it/)
  t.equal(report.answers?.compared, 2 + 4, 'two exchanges and the four bodies of two renders')
})

test('regression: a webhook converter that throws now is a finding on a render whose event holds a redacted value elsewhere: it was "not replayed"', async (t) => {
  const Signed = Type.Object({ key: Type.String(), data: Note })
  const appWith = async (broken: boolean): Promise<FastifyInstance> => {
    class NameWasTitle extends VersionChange {
      description = 'name was title.'
      instructionsToMigrateToPreviousVersion = [schema(Note).field('name').had({ name: 'title' })]

      @ConvertResponseToPreviousVersionFor(Note)
      titleDown (response: ResponseInfo) {
        response.body.title = broken ? response.body.owner.name : response.body.name
        delete response.body.name
      }
    }
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01')) })
    app.versioner.webhooks.add({ name: 'note.signed', body: Signed })
    t.teardown(() => app.close())
    await app.ready()
    return app
  }
  // As captureExchanges writes it with `redact: { pointers: ['/key'] }`.
  const line = JSON.stringify({
    webhook: { name: 'note.signed', method: 'POST' },
    event: { key: '[redacted]', data: { id: 'n1', name: 'Pen' } },
    deliveries: [{ version: '2000-01-01', body: { key: '[redacted]', data: { id: 'n1', title: 'Pen' } } }]
  })
  t.same((await replayTraffic(await appWith(false), readTraffic(line))).findings, [], 'the correct app replays it')
  const report = await replayTraffic(await appWith(true), readTraffic(line))
  t.same(report.findings.map((finding) => finding.text), [
    'line 1: webhook note.signed (2000-01-01): delivery: converter failed: TypeError: Cannot read properties of undefined (reading \'name\'); changed last by NameWasTitle (2001-01-01), converter NameWasTitle.titleDown.'
  ])
  t.same(report.notReplayable, [])
})

test('regression: an event holding a Date in a date field (format: \'date\') is recorded as its converters got it; replay reported the body sent as changed', async (t) => {
  const Due = Type.Object({ id: Type.String(), due: Type.String({ format: 'date' }) })
  const build = async (): Promise<FastifyInstance> => {
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), captureExchanges: {} })
    app.versioner.webhooks.add({ name: 'invoice.due', body: Due })
    await app.register(versioned(async (api) => { api.get('/ping', async () => ({ ok: true })) }))
    await app.ready()
    return app
  }
  const recorded = await build()
  t.teardown(() => recorded.close())
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record))
  // As a handler builds it from a database row (a DATE column read as a Date).
  const event = { id: 'in_1', due: new Date('2024-01-02T00:00:00Z') }
  const { deliveries } = await recorded.versioner.webhooks.render('invoice.due', event, { subscribers: [{ id: 'ep_1', version: '2000-01-01', secret: `whsec_${'A'.repeat(32)}` }] })
  t.same(JSON.parse(deliveries[0].body), { id: 'in_1', due: '2024-01-02' }, 'sent as its date, as a route answering it writes it')
  t.same(readTraffic(lines.join('\n')).deliveries[0].delivery.event, { id: 'in_1', due: '2024-01-02' }, 'the event recorded as the converters got it')
  const fresh = await build()
  t.teardown(() => fresh.close())
  t.same((await replayTraffic(fresh, readTraffic(lines.join('\n')))).findings.map((finding) => finding.text), [], 'replayed: nothing changed')
})
