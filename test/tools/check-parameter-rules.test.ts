// `check` sees a rule on a querystring, headers or params object as a whole (a named validator `withValidators`
// adds to it): the documents write such an object as one parameter per field, so the rule travels in the
// operation's `x-parameter-rules` (decision 0198).
import { test, type Test } from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { Type, type TObject } from '@sinclair/typebox'
import { checkDocuments, compareDocuments, exportDocuments } from '../../tools'
import { versionedApp } from '../helpers/apps'
import { bundleOf } from '../helpers/http-apps'
import { ConvertRequestToNextVersionFor, defineValidator, schema, VersionChange, withValidators, type RequestInfo } from '../../plugin'

type Json = Record<string, any>

const FIX = 'a request it refuses now was accepted before: declare schema(…).validator(name).didntExist in the version change that adds it, ' +
  'so that older versions keep accepting them, and a request converter that makes their requests meet it'

/** One route's part holding two optional fields, and the rule "give one of them" on the object as a whole. */
interface Part {
  readonly name: 'querystring' | 'headers' | 'params'
  readonly url: string
  readonly fields: [string, string]
  /** How the rule reads in a break: `query parameters /`… */
  readonly where: string
  /** The rule on the object as a whole. */
  readonly rule: Json
  /** A saved version's request the rule refuses, and the converter making it meet the rule (none for a path). */
  readonly request: (version: string) => { url: string, headers: Record<string, string> }
  readonly meet?: (request: RequestInfo) => void
}

const PARTS: Part[] = [
  {
    name: 'querystring',
    url: '/invoices',
    fields: ['customerId', 'email'],
    where: 'query parameters',
    rule: { anyOf: [{ required: ['customerId'] }, { required: ['email'] }] },
    request: (version) => ({ url: '/invoices?limit=5', headers: { 'x-api-version': version } }),
    meet: (request) => { if (request.queryParams.customerId === undefined && request.queryParams.email === undefined) request.queryParams.email = 'any@example.com' }
  },
  {
    name: 'headers',
    url: '/invoices',
    fields: ['x-customer', 'x-email'],
    where: 'header parameters',
    rule: { anyOf: [{ required: ['x-customer'] }, { required: ['x-email'] }] },
    request: (version) => ({ url: '/invoices', headers: { 'x-api-version': version } }),
    meet: (request) => { if (request.headers['x-customer'] === undefined && request.headers['x-email'] === undefined) request.headers['x-email'] = 'any@example.com' }
  },
  {
    name: 'params',
    url: '/accounts/:kind/:id',
    fields: ['kind', 'id'],
    where: 'path parameters',
    // An organisation's id starts with org_.
    rule: { if: { properties: { kind: { const: 'org' } } }, then: { properties: { id: { pattern: '^org_' } } } },
    request: (version) => ({ url: '/accounts/org/42', headers: { 'x-api-version': version } })
  }
]

async function appWith (t: Test, part: Part, rule: boolean, instructed: boolean): Promise<FastifyInstance> {
  const [a, b] = part.fields
  const field = part.name === 'params' ? Type.String() : Type.Optional(Type.String())
  const fields = { [a]: field, [b]: field, ...(part.name === 'querystring' ? { limit: Type.Optional(Type.Integer()) } : {}) }
  const oneOf = defineValidator('namesOne', part.rule)
  const plain = Type.Object(fields)
  const object: TObject = rule ? withValidators(plain, oneOf) : plain
  class NamesOne extends VersionChange {
    description = 'A list names a customer or an e-mail.'
    instructionsToMigrateToPreviousVersion = instructed ? [schema(object).validator('namesOne').didntExist] : []

    @ConvertRequestToNextVersionFor(part.url, ['GET'])
    meetIt (request: RequestInfo) {
      if (instructed) part.meet?.(request)
    }
  }
  const app = await versionedApp(t, bundleOf(rule ? ['2001-01-01', '2000-01-01'] : ['2000-01-01'], { '2001-01-01': [NamesOne] }), async (api) => {
    api.get(part.url, { schema: { [part.name]: object, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => ({ count: 0 }))
  })
  await app.ready()
  return app
}

for (const part of PARTS) {
  test(`regression: check fails a rule added to a ${part.name} object without validator(…).didntExist (CI was green, the old client refused)`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await exportDocuments(await appWith(t, part, false, false), dir)
    const send = async (app: FastifyInstance): Promise<number> => (await app.inject({ method: 'GET', ...part.request('2000-01-01') })).statusCode
    const forgotten = await appWith(t, part, true, false)
    t.equal(await send(forgotten), 400, 'the saved version\'s client is refused')
    const { breaks } = await checkDocuments(forgotten, dir)
    const path = part.url.replace(/:(\w+)/g, '{$1}')
    t.same(breaks.map((change) => change.text), [`2000-01-01 GET ${path}: ${part.where}: rule added: ${JSON.stringify(part.rule)} (${FIX})`])
    const instructed = await appWith(t, part, true, true)
    if (part.meet !== undefined) t.equal(await send(instructed), 200, 'with the instruction and a converter meeting the rule, the saved version\'s client is served')
    t.same((await checkDocuments(instructed, dir)).breaks, [], 'and check is green')
  })
}

/** A version's document of `GET /invoices` with two query parameters, its operation's `x-parameter-rules` given. */
function invoices (rules?: Json): Json {
  const parameter = (name: string): Json => ({ in: 'query', name, required: false, schema: { type: 'string' } })
  const operation: Json = { operationId: 'listInvoices', parameters: [parameter('customerId'), parameter('email')], responses: { 200: { description: 'OK' } } }
  if (rules !== undefined) operation['x-parameter-rules'] = rules
  return { openapi: '3.1.0', info: { title: 'API', version: '2000-01-01' }, paths: { '/invoices': { get: operation } } }
}

test('check compares a parameter object\'s rules by side: gained breaks, lost or widened is a note, none beside new parameters', async (t) => {
  const named = { anyOf: [{ required: ['customerId'] }, { required: ['email'] }] }
  const judged = (saved: Json, current: Json): string[] => compareDocuments('2000-01-01', saved, current).map((found) => `${found.breaking ? 'break' : 'note'} ${found.kind}`)
  t.same(judged(invoices(), invoices({ query: [named] })), [`break rule added: ${JSON.stringify(named)} (${FIX})`], 'gained where the saved operation has none')
  t.same(judged(invoices({ query: [named] }), invoices({ query: [named] })), [], 'kept')
  t.same(judged(invoices({ query: [named] }), invoices()), [`note rule removed: ${JSON.stringify(named)} (widened: what it accepted, it accepts)`], 'lost: a note')
  const wider = { anyOf: [...named.anyOf, { required: ['status'] }] }
  t.same(judged(invoices({ query: [named] }), invoices({ query: [wider] })).map((text) => text.slice(0, 18)), ['note rule widened:'], 'an anyOf given a member: a note')
  t.same(judged(invoices({ query: [{ ...named, description: 'a' }] }), invoices({ query: [named] })), [], 'text aside')
  t.same(judged(invoices({ header: [named] }), invoices({ query: [named] })).map((text) => text.slice(0, 11)), ['break rule '], 'by where the parameters are')
  // A querystring object new with its rule: its parameters are new, the rule part of them.
  const none = invoices()
  none.paths['/invoices'].get.parameters = []
  t.notOk(judged(none, invoices({ query: [named] })).some((text) => text.includes('rule')), 'a rule beside new parameters: part of them')
  // The extension is never compared by the diff itself.
  t.notOk(judged(invoices(), invoices({ query: [named], header: [named] })).some((text) => text.includes('x-parameter-rules')), 'the extension is not a change of its own')
})

test('a version\'s document carries a parameter object\'s rule in its operation, and nothing without one', async (t) => {
  const rule = { anyOf: [{ required: ['customerId'] }, { required: ['email'] }] }
  const Query = Type.Object({ customerId: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }, { $id: 'InvoiceQuery' })
  const app = await versionedApp(t, bundleOf(['2000-01-01']), async (api) => {
    api.get('/invoices', { schema: { querystring: withValidators(Query, defineValidator('namesOne', rule)) } }, async () => ({}))
    api.get('/customers', { schema: { querystring: Query } }, async () => ({}))
    // "Give from with to": written on the object itself, as dropped as a named validator.
    const period = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) }, { dependencies: { from: ['to'], to: ['from'] } })
    api.get('/payments', { schema: { querystring: period } }, async () => ({}))
  })
  await app.ready()
  const { paths } = JSON.parse((await app.inject({ url: '/openapi.json?version=2000-01-01' })).body) as Json
  t.same(paths['/invoices'].get['x-parameter-rules'], { query: [rule] }, 'a shared querystring object named by $id: its rule, as JSON')
  t.notOk(Object.hasOwn(paths['/customers'].get, 'x-parameter-rules'), 'no rule: no extension')
  t.same(paths['/payments'].get['x-parameter-rules'], { query: [{ dependencies: { from: ['to'], to: ['from'] } }] }, 'a keyword on the object itself')
  t.equal((await app.inject({ url: '/payments?from=2020-01-01', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 400, 'which the app enforces')
})
