// `replay --handlers` sends each recorded request in the media type its client sent it (decision 0303): a form
// re-encoded as a form, text as its text, JSON as JSON; a body the record holds only as the parser read it (a file
// part, rows a CSV parser made, a body the handler streamed) is not sent, and the report says why.
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import fastifyFormbody from '@fastify/formbody'
import fastifyMultipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type RequestInfo, type VersionChangeClass } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'
import { multipart } from '../helpers/request-pipeline'

/** A JSON order (`quantity`) and its form (`qty`): two schemas, two converters. */
const Order = Type.Object({ sku: Type.String(), quantity: Type.Integer({ minimum: 1 }) })
const OrderForm = Type.Object({ sku: Type.String(), qty: Type.Integer({ minimum: 1 }) })
const Note = Type.Object({ text: Type.String() })

/** In 2000-01-01 an order's `sku` was `code` (JSON) and `item` (form); `upper`: the form's converter mistaken, the item upper-cased on its way. */
function skuRenamed (upper: boolean): VersionChangeClass {
  class SkuRenamed extends VersionChange {
    description = 'sku was code in JSON orders and item in order forms.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('sku').had({ name: 'code' }), schema(OrderForm).field('sku').had({ name: 'item' })]

    @ConvertRequestToNextVersionFor(Order)
    codeUp (request: RequestInfo) {
      const { code, ...rest } = request.body as Record<string, unknown>
      request.body = { ...rest, sku: code }
    }

    @ConvertRequestToNextVersionFor(OrderForm)
    itemUp (request: RequestInfo) {
      const { item, ...rest } = request.body as Record<string, unknown>
      request.body = { ...rest, sku: upper ? String(item).toUpperCase() : item }
    }
  }
  return SkuRenamed
}

/** What a team changed in HEAD's handlers or converters, without a version change. */
interface Changes {
  /** The form converter of 2001-01-01 upper-cases the item. */
  readonly upperFormItem?: boolean
  /** A note sent as a form is stored upper-cased (a JSON note as it was). */
  readonly upperFormNotes?: boolean
}

const isForm = (type: unknown): boolean => String(type).startsWith('application/x-www-form-urlencoded') || String(type).startsWith('multipart/form-data')

function shop (changes: Changes = {}): () => Promise<FastifyInstance> {
  return async () => {
    const app = Fastify()
    await app.register(fastifyFormbody)
    await app.register(fastifyMultipart, { attachFieldsToBody: 'keyValues' })
    app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => { done(null, body) })
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', skuRenamed(changes.upperFormItem === true)), new Version('2000-01-01'))
    await app.register(fastifyVersioner, { versions, captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      api.post('/orders', {
        schema: { body: { content: { 'application/json': { schema: Order }, 'application/x-www-form-urlencoded': { schema: OrderForm } } } }
      }, async (request) => {
        const body = request.body as Record<string, unknown>
        return { sku: body.sku, quantity: 'qty' in body ? body.qty : body.quantity }
      })
      api.post('/notes', {
        schema: { body: { content: { 'application/json': { schema: Note }, 'application/x-www-form-urlencoded': { schema: Note }, 'multipart/form-data': { schema: Type.Object({ text: Type.Any() }) } } } }
      }, async (request) => {
        const text = String((request.body as { text: unknown }).text)
        return { text: changes.upperFormNotes === true && isForm(request.headers['content-type']) ? text.toUpperCase() : text }
      })
      api.post('/imports', { schema: { body: { content: { 'text/csv': { schema: Type.String() } } } } }, async (request) => {
        const text = request.body as string
        return { rows: text.split('\n').length, first: text.split('\n')[0] }
      })
    }))
    return app
  }
}

/** What the requests `send` makes of a fresh shop are recorded as (one exchange a line). */
async function recorded (send: (app: FastifyInstance) => Promise<void>): Promise<string> {
  const app = await shop()()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    await send(app)
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  return lines.join('\n')
}

async function replayed (traffic: string, changes: Changes = {}): Promise<{ findings: string[], notReplayed: string[], compared: number | undefined }> {
  const build = shop(changes)
  const app = await build()
  try {
    await app.ready()
    const report = await replayTraffic(app, readTraffic(traffic), { handlers: build })
    return { findings: report.findings.map((finding) => finding.text), notReplayed: report.notReplayable.map((item) => `line ${item.line}: ${item.message}`), compared: report.answers?.compared }
  } finally {
    await app.close()
  }
}

const OLD = { 'x-api-version': '2000-01-01' }
const FORM = { ...OLD, 'content-type': 'application/x-www-form-urlencoded' }

test('regression: a recorded url-encoded order is sent as a form, through the form\'s schema and converter: it was sent as JSON, which the JSON schema refused', async (t) => {
  const traffic = await recorded(async (app) => {
    t.equal((await app.inject({ method: 'POST', url: '/orders', headers: FORM, payload: 'item=pen+nib&qty=3' })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: '/orders', headers: OLD, payload: { code: 'ink', quantity: 2 } })).statusCode, 200)
  })
  t.equal(readTraffic(traffic).exchanges.length, 2)
  t.same(await replayed(traffic), { findings: [], notReplayed: [], compared: 2 }, 'the correct shop answers both as recorded')
  const mistaken = await replayed(traffic, { upperFormItem: true })
  t.equal(mistaken.findings.length, 1, 'the form converter\'s mistake is caught on the recorded form')
  t.match(mistaken.findings[0], /^line 1: POST \/orders \(2000-01-01\): .*'pen nib'.*'PEN NIB'/)
})

test('regression: a handler change on form bodies only is a finding on the recorded form (sent as JSON, it took the JSON path and was green)', async (t) => {
  const traffic = await recorded(async (app) => {
    await app.inject({ method: 'POST', url: '/notes', headers: FORM, payload: 'text=hello+there' })
    await app.inject({ method: 'POST', url: '/notes', headers: OLD, payload: { text: 'json note' } })
    const { payload, headers } = multipart([{ name: 'text', value: 'in parts' }])
    await app.inject({ method: 'POST', url: '/notes', headers: { ...OLD, ...headers }, payload })
  })
  t.same(await replayed(traffic), { findings: [], notReplayed: [], compared: 3 }, 'the correct shop: the form and the multipart text fields sent again as they were')
  t.same((await replayed(traffic, { upperFormNotes: true })).findings, [
    "line 1: POST /notes (2000-01-01): answer body/text: the client received 'hello there', the handlers of a fresh application now answer 'HELLO THERE'.",
    "line 3: POST /notes (2000-01-01): answer body/text: the client received 'in parts', the handlers of a fresh application now answer 'IN PARTS'."
  ])
})

test('regression: a text/csv body is sent as its text under its recorded type, a `+json` parameter notwithstanding (it was sent as a JSON string)', async (t) => {
  const traffic = await recorded(async (app) => {
    for (const type of ['text/csv', 'text/csv; profile="https://example.com/rows.json"']) {
      t.equal((await app.inject({ method: 'POST', url: '/imports', headers: { ...OLD, 'content-type': type }, payload: 'sku,qty\npen,3' })).statusCode, 200)
    }
  })
  t.same(await replayed(traffic), { findings: [], notReplayed: [], compared: 2 })
})

test('a multipart body holding a file is not sent to the handlers (the record lost its name and media type): the report says so', async (t) => {
  const traffic = await recorded(async (app) => {
    const { payload, headers } = multipart([{ name: 'text', value: 'with a file' }, { name: 'attachment', filename: 'a.txt', contentType: 'text/plain', data: 'hello' }])
    t.equal((await app.inject({ method: 'POST', url: '/notes', headers: { ...OLD, ...headers }, payload })).statusCode, 200)
  })
  t.equal(readTraffic(traffic).exchanges.length, 1, 'recorded')
  const { findings, notReplayed, compared } = await replayed(traffic)
  t.same(findings, [])
  t.equal(compared, 0)
  t.match(notReplayed, [/^line 1: answer: not sent to the handlers: its multipart body holds a field that is not text \(a file, recorded without its name and media type/])
})

test('a multipart body the handler reads as a stream (request.file()) is recorded without its body: not sent without it, the report says why', async (t) => {
  const build = async (): Promise<FastifyInstance> => {
    const app = Fastify()
    await app.register(fastifyMultipart)
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      api.post('/uploads', async (request) => {
        const file = await request.file()
        return { name: file?.filename ?? null, size: file === undefined ? 0 : (await file.toBuffer()).length }
      })
    }))
    return app
  }
  const app = await build()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  const { payload, headers } = multipart([{ name: 'upload', filename: 'a.txt', contentType: 'text/plain', data: 'hello' }])
  const answer = await app.inject({ method: 'POST', url: '/uploads', headers: { ...OLD, ...headers }, payload })
  diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
  t.same(answer.json(), { name: 'a.txt', size: 5 })
  t.teardown(() => app.close())
  const report = await replayTraffic(app, readTraffic(lines.join('\n')), { handlers: build })
  t.same(report.findings, [], 'not a finding (sent without its body, the handler answered otherwise)')
  t.match(report.notReplayable.map((item) => item.message), [/^answer: not sent to the handlers: its body \(multipart\/form-data\) was read by the handler as a stream and not recorded$/])
})
