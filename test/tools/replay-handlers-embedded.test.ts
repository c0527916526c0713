// `replay --handlers` (decisions 0234, 0239): an id the handlers made, carried inside a longer string of a later
// request (a comma-joined query value, `If-Match: "<etag>"`, `X-Parent: customers/<id>`, a note naming an invoice), is
// sent as each fresh application's own id; and an answer string holding ids (a URL, a `Location`) is compared after
// mapping them, so a handler that changed its form is a finding.
import { test } from 'tap'
import { randomBytes, randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, HeadVersion, versioned, Version, VersionBundle } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'
import { IdsInStrings, isDistinctive } from '../../lib/tools/ids-in-strings'

const Customer = Type.Object({ id: Type.String(), name: Type.String(), url: Type.String() })
const Invoice = Type.Object({ id: Type.String(), customer: Type.String(), etag: Type.String(), paid: Type.Boolean() })
const CreditNote = Type.Object({ id: Type.String(), invoice: Type.String(), note: Type.String(), reference: Type.String() })
const Failure = Type.Object({ message: Type.String() })

/** What a team changed in HEAD's handlers, without a version change. */
interface LedgerChanges {
  /** A customer's `url` answered as `/v2/customers/<id>`. */
  readonly urlForm?: boolean
  /** A customer's `Location` answered as `/v2/customers/<id>`. */
  readonly locationForm?: boolean
}

/** A builder of fresh ledger applications (each with its own empty store), with `changes` made to its handlers. */
function ledger (changes: LedgerChanges = {}): () => Promise<FastifyInstance> {
  return async () => {
    const customers = new Map<string, typeof Customer.static>()
    const invoices = new Map<string, typeof Invoice.static>()
    const app = Fastify()
    const versions = new VersionBundle(new HeadVersion(), new Version('2000-01-01'))
    await app.register(fastifyVersioner, { versions, captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      const link = (id: string, moved: boolean | undefined): string => `${moved === true ? '/v2' : ''}/customers/${id}`
      api.post('/customers', { schema: { body: Type.Object({ name: Type.String() }), response: { 201: Customer } } }, async (request, reply) => {
        const id = `cus_${randomBytes(8).toString('hex')}`
        const customer = { id, name: request.body.name, url: link(id, changes.urlForm) }
        customers.set(id, customer)
        return await reply.code(201).header('location', link(id, changes.locationForm)).send(customer)
      })
      // The parent customer is named by a header holding its path: `X-Parent: customers/<id>`.
      api.post('/invoices', { schema: { response: { 201: Invoice, 422: Failure } } }, async (request, reply) => {
        const parent = /^customers\/(.+)$/.exec(String(request.headers['x-parent']))?.[1]
        if (parent === undefined || !customers.has(parent)) return await reply.code(422).send({ message: 'No such customer' })
        const invoice = { id: `inv_${randomBytes(8).toString('hex')}`, customer: parent, etag: randomUUID(), paid: false }
        invoices.set(invoice.id, invoice)
        return await reply.code(201).send(invoice)
      })
      api.get('/invoices', { schema: { querystring: Type.Object({ ids: Type.String() }), response: { 200: Type.Array(Invoice) } } }, async (request) =>
        request.query.ids.split(',').flatMap((id) => invoices.get(id) ?? []))
      // Paid only with the invoice's current etag: `If-Match: "<etag>"`.
      api.post('/invoices/:invoiceId/pay', { schema: { params: Type.Object({ invoiceId: Type.String() }), response: { 200: Invoice, 404: Failure, 412: Failure } } }, async (request, reply) => {
        const invoice = invoices.get(request.params.invoiceId)
        if (invoice === undefined) return await reply.code(404).send({ message: 'No such invoice' })
        if (request.headers['if-match'] !== `"${invoice.etag}"`) return await reply.code(412).send({ message: 'Stale etag' })
        const paid = { ...invoice, etag: randomUUID(), paid: true }
        invoices.set(paid.id, paid)
        return paid
      })
      // The invoice refunded is named in the note: `refund for <id>`.
      api.post('/credit-notes', { schema: { body: Type.Object({ note: Type.String() }), response: { 201: CreditNote, 404: Failure } } }, async (request, reply) => {
        const invoice = /refund for (\w+)/.exec(request.body.note)?.[1]
        if (invoice === undefined || !invoices.has(invoice)) return await reply.code(404).send({ message: 'No such invoice' })
        const id = `cn_${randomBytes(8).toString('hex')}`
        // An id and a time of the clock (to the minute: both fresh applications write the same one).
        const minute = new Date(Math.floor(Date.now() / 60000) * 60000).toISOString()
        return await reply.code(201).send({ id, invoice, note: request.body.note, reference: `${id} issued ${minute}` })
      })
    }))
    return app
  }
}

/** The exchanges of a 2000-01-01 client of the correct ledger, recorded with captureExchanges (one a line). */
async function ledgerTraffic (): Promise<string[]> {
  const app = await ledger()()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    const send = async (method: 'GET' | 'POST', url: string, options: { payload?: object, headers?: Record<string, string> } = {}): Promise<Record<string, string>> => {
      const response = await app.inject({ method, url, ...options, headers: { 'x-api-version': '2000-01-01', ...options.headers } })
      return response.json()
    }
    const customer = await send('POST', '/customers', { payload: { name: 'Ada' } })
    const parent = { 'x-parent': `customers/${customer.id}` }
    const first = await send('POST', '/invoices', { headers: parent })
    const second = await send('POST', '/invoices', { headers: parent })
    await send('GET', `/invoices?ids=${first.id},${second.id}`)
    await send('POST', `/invoices/${first.id}/pay`, { headers: { 'if-match': `"${first.etag}"` } })
    await send('POST', '/credit-notes', { payload: { note: `refund for ${first.id}, paid twice` } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  return lines
}

/** The ledger's traffic replayed through the handlers of a ledger with `changes`: findings and exchanges not replayed. */
async function ledgerReplay (lines: readonly string[], changes: LedgerChanges = {}): Promise<{ findings: string[], notReplayed: string[], compared: number | undefined }> {
  const build = ledger(changes)
  const app = await build()
  try {
    await app.ready()
    const report = await replayTraffic(app, readTraffic(lines.join('\n')), { handlers: build })
    return {
      findings: report.findings.map((finding) => finding.text),
      notReplayed: report.notReplayable.map((item) => `line ${item.line}: ${item.route}: ${item.message}`),
      compared: report.answers?.compared
    }
  } finally {
    await app.close()
  }
}

test('replay --handlers: ids inside longer request strings are sent as each fresh application\'s own (a correct app: no finding)', async (t) => {
  const lines = await ledgerTraffic()
  t.equal(lines.length, 6, 'every exchange recorded')
  t.same(lines.map((line) => (JSON.parse(line) as { clientResponse: { status: number } }).clientResponse.status), [201, 201, 201, 200, 200, 201], 'every request answered as a client expects')
  // The credit note's reference recorded a minute of long ago: a time inside a string is compared by its form only.
  const replayed = await ledgerReplay(lines.map((line) => line.replace(/( issued )\d{4}-[\d:.T-]+Z/g, '$12020-01-01T00:00:00.000Z')))
  t.same(replayed.findings, [], 'the comma-joined query, the If-Match etag, the X-Parent path and the note are each sent the app\'s ids')
  t.same(replayed.notReplayed, [])
  t.equal(replayed.compared, 6, 'every answer compared')
})

test('replay --handlers: a request carrying, inside a longer string, an id a request the file lacks made is not replayed, not a finding', async (t) => {
  const lines = await ledgerTraffic()
  // The first invoice's creation left out: the comma-joined query and the note carry its id, as the payment's path does.
  const replayed = await ledgerReplay([lines[0], ...lines.slice(2)])
  t.same(replayed.findings, [], 'no finding against a correct app')
  t.same(replayed.notReplayed.map((text) => text.replace(/: answer: .*/, '')), [
    'line 3: GET /invoices', 'line 4: POST /invoices/:invoiceId/pay', 'line 5: POST /credit-notes'
  ])
  t.equal(replayed.compared, 2, 'the customer and the second invoice compared')
})

test('replay --handlers: an answer string holding an id is compared after mapping it: a URL or Location whose form a handler changed is a finding', async (t) => {
  const lines = await ledgerTraffic()
  const url = await ledgerReplay(lines, { urlForm: true })
  t.same(url.findings.map((text) => text.replace(/cus_[0-9a-f]{16}/g, 'ID')), [
    "line 1: POST /customers (2000-01-01): answer body/url: the client received '/customers/ID', the handlers of a fresh application now answer '/v2/customers/ID'."
  ])
  const location = await ledgerReplay(lines, { locationForm: true })
  t.same(location.findings.map((text) => text.replace(/cus_[0-9a-f]{16}/g, 'ID')), [
    "line 1: POST /customers (2000-01-01): answer headers/location: the client received '/customers/ID', the handlers of a fresh application now answer '/v2/customers/ID'."
  ])
})

test('an id inside a string: distinctive ids only, the longest first, never inside a longer token', async (t) => {
  const ids = new IdsInStrings([['inv_12345678', 'inv_AAAAAAAA'], ['inv_12345678_line2', 'inv_BBBBBBBB_line2'], ['refunded', 'paid_out'], ['req-1', 'req-2']])
  t.same(ids.replace('inv_12345678,inv_12345678_line2'), { text: 'inv_AAAAAAAA,inv_BBBBBBBB_line2', rest: '\u0000,\u0000' }, 'one id inside another is not half replaced')
  t.same(ids.replace('xinv_12345678 inv_123456789 inv_12345678x').text, 'xinv_12345678 inv_123456789 inv_12345678x', 'inside a longer token: left')
  t.same(ids.replace('"inv_12345678"').text, '"inv_AAAAAAAA"', 'quoted, as an etag')
  t.same(ids.replace('refunded for req-1').text, 'refunded for req-1', 'a word or a short id: only ever replaced whole')
  t.equal(ids.holds('customers/inv_12345678'), true)
  t.equal(ids.holds('refunded'), false)
  t.equal(isDistinctive('12345678'), true, 'digits are no word')
  t.equal(isDistinctive('abcdefghijklmnop'), false, 'letters only: a word, however long')
})
