// `verify` compares the headers a version's clients receive with those its documents declare (decision 0286): HEAD's
// response is sent with every header HEAD documents, and after each version change's converters the headers that
// version documents must have arrived, each matching its schema. A response header renamed by a converter written the
// wrong way round (reading the old name, writing the new one) is a finding; the converter right is clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, endpoint, Version, VersionBundle, VersionChange, type ResponseInfo, type SchemaLike, type VersionChangeClass } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { verify, type VerifyFindings } from '../../tools'

const InvoiceCreate = Type.Object({ amount: Type.Integer() }, { $id: 'InvoiceCreate' })
const Invoice = Type.Object({ id: Type.String(), amount: Type.Integer() }, { $id: 'Invoice' })
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

/** A 201 answering an invoice with the headers `headers` (as a team documents them, the schema beside a description). */
function created (headers: Record<string, unknown>): SchemaLike {
  return { description: 'The invoice', headers, content: { 'application/json': { schema: Invoice } } } as unknown as SchemaLike
}

const REQUEST_ID = { 'request-id': { type: 'string', minLength: 1, description: 'The id of this request, for support.' } }
const TRACE = { traceparent: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$', description: 'The W3C trace context of this request.' } }

/** The change of 2001-01-01: `traceparent` replaced `request-id`; `convert` is the response converter given older versions, if any. */
function traceReplacesRequestId (convert: ((response: ResponseInfo) => void) | undefined, before: Record<string, unknown> = REQUEST_ID): VersionChangeClass {
  const description = 'POST /invoices answers a W3C traceparent header (it was request-id).'
  const instructions = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [endpoint('/invoices', ['POST']).had({ response: { 201: created(before) } })]
  if (convert === undefined) {
    return class TraceContextReplacesRequestId extends VersionChange {
      description = description
      instructionsToMigrateToPreviousVersion = instructions()
    }
  }
  const converter = convert
  class TraceContextReplacesRequestId extends VersionChange {
    description = description
    instructionsToMigrateToPreviousVersion = instructions()

    @ConvertResponseToPreviousVersionFor('/invoices', ['POST'])
    traceparentToRequestId (response: ResponseInfo): void { converter(response) }
  }
  return TraceContextReplacesRequestId
}

async function invoicesApp (t: Parameters<typeof versionedApp>[0], change: VersionChangeClass): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', change), new Version('2000-01-01')), async (api) => {
    api.post('/invoices', { schema: { body: InvoiceCreate, response: { 201: created(TRACE) } } }, async (request, reply) => {
      reply.header('traceparent', TRACEPARENT)
      return await reply.code(201).send({ id: 'in_1', amount: request.body.amount })
    })
  })
  await app.ready()
  return app
}

function named (findings: VerifyFindings): string[] {
  return findings.map((finding) => `${finding.kind} ${finding.route} ${finding.versions.join(',')} ${finding.part} ${finding.versionChanges.join(',')} [${finding.converters.join(',')}]`)
}

test('a response header converter written the wrong way round (the old name read, the new one written) is a finding', async (t) => {
  const wrong = traceReplacesRequestId((response) => {
    const id = response.headers['request-id']
    if (id !== undefined) {
      response.headers.traceparent = id
      delete response.headers['request-id']
    }
  })
  const findings = await verify(await invoicesApp(t, wrong), { examples: 20 })
  t.same(named(findings), ['lost POST /invoices 2000-01-01 response 201 header request-id TraceContextReplacesRequestId [TraceContextReplacesRequestId.traceparentToRequestId]'])
  t.match(findings[0].text, /the header request-id, which 2000-01-01 documents, does not arrive: HEAD's response sends traceparent in its place/)
  t.match(findings[0].fix, /Make TraceContextReplacesRequestId\.traceparentToRequestId write response\.headers\['request-id'\]/)
  const none = await verify(await invoicesApp(t, traceReplacesRequestId(undefined)), { examples: 20 })
  t.same(named(none), ['lost POST /invoices 2000-01-01 response 201 header request-id TraceContextReplacesRequestId []'], 'no converter at all')
  t.match(none[0].fix, /Add a response converter to TraceContextReplacesRequestId that writes response\.headers\['request-id'\]/)
})

test('the converter the right way round is clean; one writing a value the old schema refuses, or removing a header the version documents, is not', async (t) => {
  const right = traceReplacesRequestId((response) => {
    response.headers['request-id'] = String(response.headers.traceparent)
    delete response.headers.traceparent
  })
  t.same(named(await verify(await invoicesApp(t, right), { examples: 20 })), [], 'traceparent given back as request-id')
  const empty = traceReplacesRequestId((response) => {
    response.headers['request-id'] = ''
    delete response.headers.traceparent
  })
  const refused = await verify(await invoicesApp(t, empty), { examples: 20 })
  t.same(named(refused), ['invalid POST /invoices 2000-01-01 response 201 header request-id TraceContextReplacesRequestId [TraceContextReplacesRequestId.traceparentToRequestId]'])
  t.match(refused[0].text, /the header request-id arrives as '', which the schema 2000-01-01 documents refuses: must NOT have fewer than 1 characters/)
  // Both documented in the old version, the converter removes HEAD's.
  const removed = traceReplacesRequestId((response) => {
    response.headers['request-id'] = String(response.headers.traceparent)
    delete response.headers.traceparent
  }, { ...REQUEST_ID, ...TRACE })
  const gone = await verify(await invoicesApp(t, removed), { examples: 20 })
  t.same(named(gone), ['lost POST /invoices 2000-01-01 response 201 header traceparent TraceContextReplacesRequestId [TraceContextReplacesRequestId.traceparentToRequestId]'])
  t.match(gone[0].text, /HEAD's response sends it, and the converters remove it/)
})

test('headers documented alike in every version, with no converter, or documented nowhere, are no finding', async (t) => {
  t.same(named(await verify(await invoicesApp(t, traceReplacesRequestId(undefined, TRACE)), { examples: 20 })), [], 'the same header in both versions')
  class Nothing extends VersionChange {
    description = 'Nothing a response header shows.'
    instructionsToMigrateToPreviousVersion = []
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Nothing), new Version('2000-01-01')), async (api) => {
    api.post('/invoices', { schema: { body: InvoiceCreate, response: { 201: Invoice } } }, async (request, reply) => await reply.code(201).send({ id: 'in_1', amount: request.body.amount }))
  })
  await app.ready()
  t.same(named(await verify(app, { examples: 20 })), [], 'no header documented')
})
