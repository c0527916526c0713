// `check`: each kind of change that breaks a saved version's clients is one line naming the version, operation,
// place and kind; changes its clients can ignore are notes.
import { test, type Test } from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import { apiCompare } from 'api-smart-diff'
import { checkDocuments, compareDocuments, exportDocuments, type DocumentChange } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { bundleOf } from '../helpers/http-apps'
import { everyKindOfApp } from '../helpers/every-kind-of-app'
import { runOnApis } from '../../lib/tools/api-commands'
import {
  ConvertRequestToNextVersionFor, defineValidator, endpoint, fastifyVersioner, schema, versioned, Version, VersionBundle, VersionChange, withValidators, type RequestInfo
} from '../../plugin'
import { changeClass } from '../helpers/version-changes'
import { buildApp, randomHistory, rng, type Schemas } from '../helpers/random-histories'

type Json = Record<string, any>

/** The break of a status new to 2000-01-01's `POST /users`, whose saved responses are `keys` (decision 0328). */
function newStatus (status: string, keys: string): string {
  return `2000-01-01 POST /users: response ${status}: new status, not in 2000-01-01's saved document: its clients do not handle it; if 2000-01-01 did not answer it, ` +
    `write endpoint('/users', ['POST']).had({ response: { ${keys} } }) (the responses 2000-01-01 documents) in the version change that brings ${status}, ` +
    `and give older versions what they answered (a migrateHttpErrors converter, or the handler asking isApplied); if the route always answered ${status} ` +
    'and only its documentation is new, export the snapshot again'
}

/** A document shaped as the plugin writes them: OpenAPI 3.1, named schemas as components, the version header. */
function baseDocument (): Json {
  const versionHeader = { in: 'header', name: 'x-api-version', required: true, schema: { type: 'string', enum: ['2000-01-01'], format: 'date' } }
  return {
    openapi: '3.1.0',
    info: { title: 'API', version: '2000-01-01' },
    components: {
      schemas: {
        UserCreateRequest: {
          type: 'object',
          properties: {
            address: { type: 'string', minLength: 1 },
            nickname: { type: 'string' },
            role: { anyOf: [{ const: 'admin' }, { const: 'member' }] },
            plan: { type: 'string', enum: ['free', 'pro'] }
          },
          required: ['address']
        },
        UserResource: {
          type: 'object',
          properties: {
            id: { type: 'string', format: 'uuid' },
            address: { type: 'string', description: 'Where deliveries go.' },
            status: { type: 'string', enum: ['active', 'closed'] }
          },
          required: ['id', 'address']
        }
      }
    },
    paths: {
      '/users': {
        post: {
          summary: 'Create a user',
          parameters: [versionHeader, { in: 'query', name: 'dryRun', required: false, schema: { type: 'boolean' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/UserCreateRequest' } } } },
          responses: { 200: { description: 'Default Response', content: { 'application/json': { schema: { $ref: '#/components/schemas/UserResource' } } } } }
        }
      },
      '/users/{userId}': {
        get: {
          parameters: [{ in: 'path', name: 'userId', required: true, schema: { type: 'string' } }, versionHeader],
          responses: {
            200: { description: 'Default Response', content: { 'application/json': { schema: { $ref: '#/components/schemas/UserResource' } } } },
            404: { description: 'Default Response', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } }
          }
        }
      }
    }
  }
}

function changed (edit: (document: Json) => void): DocumentChange[] {
  const after = baseDocument()
  edit(after)
  return compareDocuments('2000-01-01', baseDocument(), after)
}

/** A case: its name, what both documents hold, the edit of the current one, and whether the change breaks. */
type SidedCase = [name: string, saved: (document: Json) => void, edit: (document: Json) => void, breaking: boolean]

/** Asserts each case is reported, on its side. */
function judgeCases (t: Test, cases: readonly SidedCase[]): void {
  for (const [name, saved, edit, breaking] of cases) {
    const before = baseDocument()
    saved(before)
    const after = baseDocument()
    saved(after)
    edit(after)
    const changes = compareDocuments('2000-01-01', before, after)
    t.ok(changes.length > 0, `${name}: reported`)
    t.equal(changes.some((change) => change.breaking), breaking, `${name}: ${breaking ? 'breaks' : 'a note'} (${changes.map((change) => change.text).join('; ')})`)
  }
}

const lines = (changes: DocumentChange[], breaking: boolean): string[] => changes.filter((change) => change.breaking === breaking).map((change) => change.text)

test('an unchanged document has no changes', async (t) => {
  t.same(compareDocuments('2000-01-01', baseDocument(), baseDocument()), [])
})

test('each kind of break is one line naming version, operation, place and kind', async (t) => {
  const cases: Array<[string, (document: Json) => void, string[]]> = [
    ['a request field removed', (d) => { delete d.components.schemas.UserCreateRequest.properties.nickname }, ['2000-01-01 POST /users: request body /nickname: removed']],
    ['a response field removed', (d) => {
      delete d.components.schemas.UserResource.properties.address
      d.components.schemas.UserResource.required = ['id']
    }, ['2000-01-01 POST /users: response 200 /address: removed', '2000-01-01 GET /users/{userId}: response 200 /address: removed']],
    ['a response field renamed', (d) => {
      const schema = d.components.schemas.UserResource
      schema.properties.street = schema.properties.address
      delete schema.properties.address
      schema.required = ['id', 'street']
    }, ['2000-01-01 POST /users: response 200 /address: renamed to street', '2000-01-01 GET /users/{userId}: response 200 /address: renamed to street']],
    ['a request field renamed', (d) => {
      const schema = d.components.schemas.UserCreateRequest
      schema.properties.street = schema.properties.address
      delete schema.properties.address
      schema.required = ['street']
    }, ['2000-01-01 POST /users: request body /address: renamed to street']],
    ['a type changed', (d) => { d.components.schemas.UserCreateRequest.properties.address.type = 'integer' }, ["2000-01-01 POST /users: request body /address: type 'string' → 'integer'"]],
    ['a request field became required', (d) => { d.components.schemas.UserCreateRequest.required.push('nickname') }, ['2000-01-01 POST /users: request body /nickname: became required']],
    ['a new required request field', (d) => {
      d.components.schemas.UserCreateRequest.properties.email = { type: 'string' }
      d.components.schemas.UserCreateRequest.required.push('email')
    }, ['2000-01-01 POST /users: request body /email: new required field']],
    ['a response field became optional', (d) => { d.components.schemas.UserResource.required = ['id'] },
      ['2000-01-01 POST /users: response 200 /address: became optional', '2000-01-01 GET /users/{userId}: response 200 /address: became optional']],
    ['an enum member removed (enum)', (d) => { d.components.schemas.UserCreateRequest.properties.plan.enum = ['free'] }, ["2000-01-01 POST /users: request body /plan: enum member 'pro' removed"]],
    ['an enum member removed (union of literals)', (d) => { d.components.schemas.UserCreateRequest.properties.role.anyOf.pop() }, ["2000-01-01 POST /users: request body /role: enum member 'member' removed"]],
    ['a status removed', (d) => { delete d.paths['/users/{userId}'].get.responses[404] }, ['2000-01-01 GET /users/{userId}: response 404: status removed']],
    ['a new status (decision 0328)', (d) => { d.paths['/users'].post.responses[409] = { description: 'Conflict' } }, [newStatus('409', '200: …')]],
    ['an endpoint removed', (d) => { delete d.paths['/users/{userId}'] }, ['2000-01-01 GET /users/{userId}: endpoint removed']],
    ['a method removed', (d) => { d.paths['/users/{userId}'].put = d.paths['/users/{userId}'].get; delete d.paths['/users/{userId}'].get },
      ['2000-01-01 GET /users/{userId}: endpoint removed']],
    ['a parameter removed', (d) => { d.paths['/users'].post.parameters.pop() }, ['2000-01-01 POST /users: query parameter dryRun: removed']],
    ['a parameter became required', (d) => { d.paths['/users'].post.parameters[1].required = true }, ['2000-01-01 POST /users: query parameter dryRun: became required']],
    ['a new required parameter', (d) => { d.paths['/users'].post.parameters.push({ in: 'query', name: 'tenant', required: true, schema: { type: 'string' } }) },
      ['2000-01-01 POST /users: query parameter tenant: new required parameter']],
    ['a request constraint tightened', (d) => { d.components.schemas.UserCreateRequest.properties.address.minLength = 5 }, ['2000-01-01 POST /users: request body /address: minLength 1 → 5']],
    ['an enum member added to a response field', (d) => { d.components.schemas.UserResource.properties.status.enum.push('suspended') },
      ["2000-01-01 POST /users: response 200 /status: enum member 'suspended' added", "2000-01-01 GET /users/{userId}: response 200 /status: enum member 'suspended' added"]],
    ['a parameter type changed', (d) => { d.paths['/users'].post.parameters[1].schema.type = 'integer' }, ["2000-01-01 POST /users: query parameter dryRun /: type 'boolean' → 'integer'"]]
  ]
  for (const [name, edit, expected] of cases) {
    const changes = changed(edit)
    t.same(lines(changes, true), expected, name)
  }
})

test('changes clients can ignore are notes, not breaks', async (t) => {
  const cases: Array<[string, (document: Json) => void, string[]]> = [
    ['a new optional request field', (d) => { d.components.schemas.UserCreateRequest.properties.email = { type: 'string' } }, ['2000-01-01 POST /users: request body /email: new optional field']],
    ['a new response field', (d) => { d.components.schemas.UserResource.properties.email = { type: 'string' } },
      ['2000-01-01 POST /users: response 200 /email: new field', '2000-01-01 GET /users/{userId}: response 200 /email: new field']],
    ['a new endpoint', (d) => { d.paths['/teams'] = { get: { responses: { 200: { description: 'Default Response' } } } } }, ['2000-01-01 GET /teams: new endpoint']],
    ['a new optional parameter', (d) => { d.paths['/users'].post.parameters.push({ in: 'query', name: 'verbose', schema: { type: 'boolean' } }) },
      ['2000-01-01 POST /users: query parameter verbose: new optional parameter']],
    ['a text change', (d) => { d.paths['/users'].post.summary = 'Create one user' }, ['2000-01-01 POST /users: summary changed (text)']],
    ['a request field became optional', (d) => { d.components.schemas.UserCreateRequest.required = [] }, ['2000-01-01 POST /users: request body /address: became optional']],
    ['the request body became optional', (d) => { d.paths['/users'].post.requestBody.required = false }, ['2000-01-01 POST /users: request body: became optional']],
    ['a request constraint loosened', (d) => { d.components.schemas.UserCreateRequest.properties.address.minLength = 0 }, ['2000-01-01 POST /users: request body /address: minLength 1 → 0']],
    ['an enum member removed from a response field', (d) => { d.components.schemas.UserResource.properties.status.enum = ['active'] },
      ["2000-01-01 POST /users: response 200 /status: enum member 'closed' removed", "2000-01-01 GET /users/{userId}: response 200 /status: enum member 'closed' removed"]],
    ['an enum member added to a request field', (d) => { d.components.schemas.UserCreateRequest.properties.plan.enum.push('team') }, ["2000-01-01 POST /users: request body /plan: enum member 'team' added"]]
  ]
  for (const [name, edit, expected] of cases) {
    const changes = changed(edit)
    t.same(lines(changes, true), [], `${name}: no break`)
    t.same(lines(changes, false), expected, `${name}: noted`)
  }
  const described = changed((d) => { d.components.schemas.UserResource.properties.address.description = 'The delivery address.' })
  t.same(lines(described, true), [], 'a description change is no break')
})

test('regression: a path parameter a saved document lacked (path versions, no params schema) is a note, not a break', async (t) => {
  // Documents of path versions once listed only the version parameter of a route without a params schema.
  const before = baseDocument()
  before.paths['/users/{userId}'].get.parameters.shift()
  const changes = compareDocuments('2000-01-01', before, baseDocument())
  t.same(lines(changes, true), [], 'clients sent the parameter all along: no break')
  t.same(lines(changes, false), ['2000-01-01 GET /users/{userId}: path parameter userId: now documented (the path held it)'])
})

test('a changed constraint names both values; enum members are named, one line each, on the side that breaks', async (t) => {
  const request = (d: Json): Json => d.components.schemas.UserCreateRequest.properties
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['length limits added', (d) => { request(d).nickname.minLength = 1; request(d).nickname.maxLength = 40 },
      ['2000-01-01 POST /users: request body /nickname: minLength (none) → 1', '2000-01-01 POST /users: request body /nickname: maxLength (none) → 40'], []],
    ['pattern', (d) => { request(d).address.pattern = '^b' }, ["2000-01-01 POST /users: request body /address: pattern (none) → '^b'"], []],
    ['format', (d) => { d.components.schemas.UserResource.properties.id.format = 'date-time' },
      ["2000-01-01 POST /users: response 200 /id: format 'uuid' → 'date-time'", "2000-01-01 GET /users/{userId}: response 200 /id: format 'uuid' → 'date-time'"], []],
    ['an enum member replaced', (d) => { request(d).plan.enum = ['free', 'team'] },
      ["2000-01-01 POST /users: request body /plan: enum member 'pro' removed"], ["2000-01-01 POST /users: request body /plan: enum member 'team' added"]],
    ['a union member replaced', (d) => { request(d).role.anyOf[1].const = 'owner' },
      ["2000-01-01 POST /users: request body /role: enum member 'member' removed"], ["2000-01-01 POST /users: request body /role: enum member 'owner' added"]],
    ['an enum where there was none', (d) => { request(d).nickname.enum = ['ada', 'bob'] }, ["2000-01-01 POST /users: request body /nickname: enum (none) → ['ada', 'bob']"], []]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const changes = changed(edit)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
  // The issue's examples, from one saved value to another.
  const before = baseDocument()
  Object.assign(request(before), { age: { type: 'integer', minimum: 1 }, name: { type: 'string', maxLength: 40 }, code: { type: 'string', pattern: '^a' } })
  const after = structuredClone(before)
  Object.assign(request(after), { age: { type: 'integer', minimum: 100 }, name: { type: 'string', maxLength: 20 }, code: { type: 'string', pattern: '^b' } })
  t.same(compareDocuments('2000-01-01', before, after).map((change) => change.text), [
    '2000-01-01 POST /users: request body /age: minimum 1 → 100',
    '2000-01-01 POST /users: request body /name: maxLength 40 → 20',
    "2000-01-01 POST /users: request body /code: pattern '^a' → '^b'"
  ])
})

/**
 * {@link baseDocument} with what else a client consumes: two webhooks (one sending a schema no route uses, one the
 * UserResource routes return), a QUERY route under x-query (as the plugin writes it in a 3.1 document), and a
 * response header.
 */
function consumerDocument (): Json {
  const document = baseDocument()
  document.components.schemas.Invoice = {
    type: 'object',
    properties: { id: { type: 'string' }, amount: { type: 'number' }, note: { type: 'string' }, status: { anyOf: [{ const: 'open' }, { const: 'paid' }] } },
    required: ['id', 'amount', 'note']
  }
  document.components.schemas.Search = { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] }
  const payload = (name: string) => ({ required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } })
  const acknowledged = { 200: { description: 'Return a 2xx status to acknowledge the delivery.' } }
  document.webhooks = {
    'invoice.paid': { post: { summary: 'An invoice was paid', requestBody: payload('Invoice'), responses: acknowledged } },
    'user.created': { post: { requestBody: payload('UserResource'), responses: acknowledged } }
  }
  const versionHeader = document.paths['/users'].post.parameters[0]
  document.paths['/search'] = {
    'x-query': {
      parameters: [versionHeader, { in: 'query', name: 'limit', required: false, schema: { type: 'integer' } }],
      requestBody: payload('Search'),
      responses: { 200: { description: 'Default Response', content: { 'application/json': { schema: { $ref: '#/components/schemas/UserResource' } } } } }
    }
  }
  document.paths['/users/{userId}'].get.responses[200].headers = { 'x-rate-limit': { required: true, schema: { type: 'integer', maximum: 100 } } }
  // Nothing shared, as in a parsed document; the version header optional, as the plugin writes it.
  const parsed = JSON.parse(JSON.stringify(document))
  for (const operation of [parsed.paths['/users'].post, parsed.paths['/users/{userId}'].get, parsed.paths['/search']['x-query']]) operation.parameters[operation === parsed.paths['/users/{userId}'].get ? 1 : 0].required = false
  return parsed
}

function consumerChanges (edit: (document: Json) => void, saved = consumerDocument()): DocumentChange[] {
  const after = consumerDocument()
  edit(after)
  return compareDocuments('2000-01-01', saved, after)
}

test('the document of every consumer part compares unchanged, and is not changed by the comparison', async (t) => {
  const deepFreeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    Object.freeze(value)
    for (const item of Object.values(value)) deepFreeze(item)
  }
  const saved = consumerDocument()
  const current = consumerDocument()
  current.components.schemas.Invoice.properties.note.type = 'integer'
  current.paths['/search']['x-query'].parameters[0].schema.enum = ['2000-01-01', '2001-01-01']
  deepFreeze(saved)
  deepFreeze(current)
  t.same(compareDocuments('2000-01-01', saved, saved), [])
  t.same(lines(compareDocuments('2000-01-01', saved, current), true), ["2000-01-01 webhook invoice.paid: payload /note: type 'string' → 'integer'"], 'frozen documents compared')
})

test('regression: a union of one-member enums (how documents write literals under content) names its members, as a union of consts does', async (t) => {
  const literals = (document: Json, members: string[]): void => {
    document.components.schemas.UserCreateRequest.properties.role = { anyOf: members.map((member) => ({ type: 'string', enum: [member] })) }
  }
  const compare = (before: string[], after: string[]): DocumentChange[] => {
    const saved = baseDocument()
    literals(saved, before)
    const current = baseDocument()
    literals(current, after)
    return compareDocuments('2000-01-01', saved, current)
  }
  const added = compare(['admin', 'member'], ['admin', 'member', 'owner'])
  t.same(lines(added, false), ["2000-01-01 POST /users: request body /role: enum member 'owner' added"], 'added to a request: a note')
  t.same(lines(added, true), [])
  t.same(lines(compare(['admin', 'member'], ['admin']), true), ["2000-01-01 POST /users: request body /role: enum member 'member' removed"], 'removed from a request: a break')
  const replaced = compare(['admin', 'member'], ['admin', 'owner'])
  t.same(lines(replaced, true), ["2000-01-01 POST /users: request body /role: enum member 'member' removed"], 'replaced: one removed')
  t.same(lines(replaced, false), ["2000-01-01 POST /users: request body /role: enum member 'owner' added"], 'and one added')
})

test('regression: a union member that lost its const takes any value of its type (a response sending any string was a note)', async (t) => {
  // `Type.Union([Type.Literal('active'), Type.Literal('closed')])` → `Type.Union([Type.Literal('active'), Type.String()])`.
  const literal = (value: string): Json => ({ const: value, type: 'string' })
  const status = (members: Json[]) => (d: Json): void => {
    d.components.schemas.UserResource.properties.status = { anyOf: members }
    d.components.schemas.UserCreateRequest.properties.plan = { anyOf: members }
  }
  const open = [literal('active'), { type: 'string' }]
  const closed = [literal('active'), literal('closed')]
  const cases: Array<[string, Json[], Json[], string[], string[]]> = [
    ['a member\'s const removed', closed, open, ["2000-01-01 GET /users/{userId}: response 200 /status: const 'closed' removed from a union member (widened)",
      "2000-01-01 POST /users: response 200 /status: const 'closed' removed from a union member (widened)"],
    ["2000-01-01 POST /users: request body /plan: const 'closed' removed from a union member (widened)"]],
    ['a member given a const', open, closed, ["2000-01-01 POST /users: request body /plan: const 'closed' added to a union member (narrowed)"],
      ["2000-01-01 GET /users/{userId}: response 200 /status: const 'closed' added to a union member (narrowed)",
        "2000-01-01 POST /users: response 200 /status: const 'closed' added to a union member (narrowed)"]]
  ]
  for (const [name, before, after, breaks, notes] of cases) {
    const saved = baseDocument()
    status(before)(saved)
    const current = baseDocument()
    status(after)(current)
    const changes = compareDocuments('2000-01-01', saved, current)
    t.same(lines(changes, true).sort(), breaks.sort(), `${name}: breaks`)
    t.same(lines(changes, false).sort(), notes.sort(), `${name}: notes`)
  }
})

test('regression: a change to one media type of a content map holding several names that media type', async (t) => {
  const user = (required: string[]): Json => ({ type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required })
  const withMedia = (vnd: Json, body: Json): Json => {
    const document = baseDocument()
    const get = document.paths['/users/{userId}'].get
    get.responses[200].content = { 'application/json': { schema: user(['id', 'name']) }, 'application/vnd.api+json': { schema: vnd } }
    document.paths['/users'].post.requestBody.content = { 'application/json': { schema: user(['id']) }, 'application/x-www-form-urlencoded': { schema: body } }
    return document
  }
  const changes = compareDocuments('2000-01-01', withMedia(user(['id', 'name']), user(['id'])), withMedia(user(['id']), user(['id', 'name'])))
  t.same(lines(changes, true).sort(), [
    '2000-01-01 GET /users/{userId}: response 200 (application/vnd.api+json) /name: became optional',
    '2000-01-01 POST /users: request body (application/x-www-form-urlencoded) /name: became required'
  ], 'not "response 200 /name", which application/json does not change')
  const current = baseDocument()
  current.components.schemas.UserCreateRequest.required.push('nickname')
  t.same(lines(compareDocuments('2000-01-01', baseDocument(), current), true), ['2000-01-01 POST /users: request body /nickname: became required'],
    'a content map of one media type is not named')
})

test('webhook payloads are compared as responses, per webhook (check used to ignore webhooks)', async (t) => {
  const invoice = (d: Json): Json => d.components.schemas.Invoice
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['a field of a webhook-only schema removed', (d) => {
      delete invoice(d).properties.note
      invoice(d).required = ['id', 'amount']
    }, ['2000-01-01 webhook invoice.paid: payload /note: removed'], []],
    ['a field renamed', (d) => {
      invoice(d).properties.memo = invoice(d).properties.note
      delete invoice(d).properties.note
      invoice(d).required = ['id', 'amount', 'memo']
    }, ['2000-01-01 webhook invoice.paid: payload /note: renamed to memo'], []],
    ['a required field became optional', (d) => { invoice(d).required = ['id', 'note'] }, ['2000-01-01 webhook invoice.paid: payload /amount: became optional'], []],
    ['a type changed', (d) => { invoice(d).properties.amount.type = 'string' }, ["2000-01-01 webhook invoice.paid: payload /amount: type 'number' → 'string'"], []],
    ['an enum member added', (d) => { invoice(d).properties.status.anyOf.push({ const: 'void' }) }, ["2000-01-01 webhook invoice.paid: payload /status: enum member 'void' added"], []],
    ['an enum member removed', (d) => { invoice(d).properties.status.anyOf.pop() }, [], ["2000-01-01 webhook invoice.paid: payload /status: enum member 'paid' removed"]],
    ['a required field added', (d) => {
      invoice(d).properties.currency = { type: 'string' }
      invoice(d).required.push('currency')
    }, [], ['2000-01-01 webhook invoice.paid: payload /currency: new field']],
    ['a webhook removed', (d) => { delete d.webhooks['invoice.paid'] }, ['2000-01-01 webhook invoice.paid: webhook removed'], []],
    ['a new webhook', (d) => { d.webhooks['invoice.voided'] = d.webhooks['invoice.paid'] }, [], ['2000-01-01 webhook invoice.voided: new webhook']],
    ['its summary changed', (d) => { d.webhooks['invoice.paid'].post.summary = 'Paid' }, [], ['2000-01-01 webhook invoice.paid: summary changed (text)']],
    ['a webhook delivered with PUT too', (d) => { d.webhooks['invoice.paid'].put = d.webhooks['invoice.paid'].post }, [], ['2000-01-01 webhook invoice.paid (PUT): new webhook']]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const changes = consumerChanges(edit)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
})

test('a schema shared by a route and a webhook reports its change on both (an enum member added was flagged on the route only)', async (t) => {
  const changes = consumerChanges((d) => { d.components.schemas.UserResource.properties.status.enum.push('suspended') })
  t.same(lines(changes, true), [
    "2000-01-01 POST /users: response 200 /status: enum member 'suspended' added",
    "2000-01-01 GET /users/{userId}: response 200 /status: enum member 'suspended' added",
    "2000-01-01 QUERY /search: response 200 /status: enum member 'suspended' added",
    "2000-01-01 webhook user.created: payload /status: enum member 'suspended' added"
  ])
})

test('QUERY operations get the rules of other operations, under x-query or a 3.2 document\'s query (x-query was not compared)', async (t) => {
  const search = (d: Json): Json => d.components.schemas.Search
  const query = (d: Json): Json => d.paths['/search']['x-query']
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['its body renamed and given a new required field', (d) => {
      search(d).properties = { text: { type: 'string' }, lang: { type: 'string' } }
      search(d).required = ['text', 'lang']
    }, ['2000-01-01 QUERY /search: request body /term: renamed to text', '2000-01-01 QUERY /search: request body /lang: new required field'], []],
    ['a parameter became required', (d) => { query(d).parameters[1].required = true }, ['2000-01-01 QUERY /search: query parameter limit: became required'], []],
    ['a response field removed', (d) => { delete d.components.schemas.UserResource.properties.status }, [
      '2000-01-01 POST /users: response 200 /status: removed', '2000-01-01 GET /users/{userId}: response 200 /status: removed',
      '2000-01-01 QUERY /search: response 200 /status: removed', '2000-01-01 webhook user.created: payload /status: removed'
    ], []],
    ['the operation removed', (d) => { delete d.paths['/search'] }, ['2000-01-01 QUERY /search: endpoint removed'], []],
    ['a GET beside it removed', (d) => { d.paths['/search'].get = { responses: {} } }, [], ['2000-01-01 GET /search: new endpoint']],
    ['a new optional body field', (d) => { search(d).properties.page = { type: 'integer' } }, [], ['2000-01-01 QUERY /search: request body /page: new optional field']]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const changes = consumerChanges(edit)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
  // OpenAPI 3.2 puts a QUERY operation under query: the same operation, wherever the document puts it.
  const moved = (edit: (document: Json) => void = () => {}): Json => {
    const document = consumerDocument()
    edit(document)
    document.openapi = '3.2.0'
    document.paths['/search'] = { query: query(document) }
    return document
  }
  t.same(compareDocuments('2000-01-01', consumerDocument(), moved()), [], 'x-query saved, query now: the same operation')
  t.same(lines(compareDocuments('2000-01-01', moved(), moved((d) => { query(d).parameters.push({ in: 'header', name: 'x-tenant', required: true, schema: { type: 'string' } }) })), true),
    ['2000-01-01 QUERY /search: header parameter x-tenant: new required parameter'], 'query in 3.2 documents')
})

test('request headers and response headers are classified by side, as body fields are', async (t) => {
  const rate = (d: Json): Json => d.paths['/users/{userId}'].get.responses[200].headers['x-rate-limit']
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['a request header became required', (d) => { d.paths['/users'].post.parameters.push({ in: 'header', name: 'x-tenant', schema: { type: 'string' } }) }, [],
      ['2000-01-01 POST /users: header parameter x-tenant: new optional parameter']],
    ['a new required request header', (d) => { d.paths['/users'].post.parameters.push({ in: 'header', name: 'x-tenant', required: true, schema: { type: 'string' } }) },
      ['2000-01-01 POST /users: header parameter x-tenant: new required parameter'], []],
    ['a response header removed', (d) => { delete d.paths['/users/{userId}'].get.responses[200].headers['x-rate-limit'] },
      ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit: removed'], []],
    ['every response header removed', (d) => { delete d.paths['/users/{userId}'].get.responses[200].headers },
      ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit: removed'], []],
    ['a response header became optional', (d) => { delete rate(d).required }, ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit: became optional'], []],
    ['a response header retyped', (d) => { rate(d).schema.type = 'string' }, ["2000-01-01 GET /users/{userId}: response 200 header x-rate-limit /: type 'integer' → 'string'"], []],
    ['a response header constraint loosened', (d) => { rate(d).schema.maximum = 1000 }, ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit /: maximum 100 → 1000'], []],
    ['a response header constraint tightened', (d) => { rate(d).schema.maximum = 10 }, [], ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit /: maximum 100 → 10']],
    ['a new response header', (d) => { d.paths['/users'].post.responses[200].headers = { etag: { schema: { type: 'string' } } } }, [],
      ['2000-01-01 POST /users: response 200 header etag: new header']],
    ['a response header described', (d) => { rate(d).description = 'Requests left.' }, [], ['2000-01-01 GET /users/{userId}: response 200 header x-rate-limit: description added (text)']],
    // A removed parameter used to be named after the current document's parameter at its index (here, dryRun).
    ['the first parameter removed', (d) => { d.paths['/users'].post.parameters.shift() }, ['2000-01-01 POST /users: header parameter x-api-version: removed'], []]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const changes = consumerChanges(edit)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
  const required = consumerDocument()
  required.paths['/users'].post.parameters[1] = { in: 'header', name: 'x-tenant', schema: { type: 'string' } }
  t.same(lines(consumerChanges((d) => { d.paths['/users'].post.parameters[1] = { in: 'header', name: 'x-tenant', required: true, schema: { type: 'string', maxLength: 8 } } }, required), true), [
    '2000-01-01 POST /users: header parameter x-tenant /: maxLength (none) → 8',
    '2000-01-01 POST /users: header parameter x-tenant: became required'
  ], 'a request header that became required, and narrower')
})

test('regression: a list parameter\'s style and explode compare as the values in force (explode: false added was a note)', async (t) => {
  const list = { in: 'query', name: 'ids', schema: { type: 'array', items: { type: 'string' } } }
  const filter = { in: 'query', name: 'filter', schema: { type: 'object', properties: { status: { type: 'string' } } } }
  const limit = { in: 'query', name: 'limit', schema: { type: 'integer' } }
  const withParameters = (...parameters: Json[]) => (d: Json): void => { d.paths['/users'].post.parameters.push(...parameters) }
  const cases: Array<[string, Json[], Json[], string[], string[]]> = [
    // `?ids=a&ids=b` (OpenAPI's default for a query parameter: form, exploded) became `?ids=a,b`.
    ['explode: false added to a list', [list], [{ ...list, explode: false }], ['2000-01-01 POST /users: query parameter ids: explode true → false'], []],
    ['explode: false removed from a list', [{ ...list, explode: false }], [list], ['2000-01-01 POST /users: query parameter ids: explode false → true'], []],
    // @fastify/swagger writes both where the querystring schema states both: the diff library alone saw no change.
    ['explode turned false where style is stated', [{ ...list, style: 'form', explode: true }], [{ ...list, style: 'form', explode: false }],
      ['2000-01-01 POST /users: query parameter ids: explode true → false'], []],
    ['explode: true, the default, spelled out', [list], [{ ...list, style: 'form', explode: true }], [], []],
    ['deepObject given to an object', [filter], [{ ...filter, style: 'deepObject', explode: true }], ["2000-01-01 POST /users: query parameter filter: style 'form' → 'deepObject'"], []],
    // A single value is sent as `limit=10` whatever the style: nothing its clients send changes.
    ['explode: false added to a single value', [limit], [{ ...limit, explode: false }], [], []],
    ['explode: true turned false on a single value', [{ ...limit, explode: true }], [{ ...limit, explode: false }], [], []]
  ]
  for (const [name, saved, current, breaks, notes] of cases) {
    const before = baseDocument()
    withParameters(...saved)(before)
    const after = baseDocument()
    withParameters(...current)(after)
    const changes = compareDocuments('2000-01-01', before, after)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
})
test('the version parameter: what names the version in each document is not reported, what stops its clients breaks', async (t) => {
  const header = (d: Json): Json => d.paths['/users'].post.parameters[0]
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['its enum lists more versions', (d) => { header(d).schema.enum = ['2000-01-01', '2001-01-01'] }, [], []],
    ['a default naming the version', (d) => { header(d).schema.default = '2000-01-01' }, [], []],
    ['its format gone', (d) => { delete header(d).schema.format }, [], []],
    ['it became required', (d) => { header(d).required = true }, ['2000-01-01 POST /users: header parameter x-api-version: became required'], []],
    ['it no longer accepts the version', (d) => { header(d).schema.enum = ['2001-01-01'] }, ["2000-01-01 POST /users: header parameter x-api-version: no longer accepts '2000-01-01'"], []],
    ['its pattern refuses the version', (d) => { header(d).schema.pattern = '^v' }, ["2000-01-01 POST /users: header parameter x-api-version: no longer accepts '2000-01-01'"], []],
    ['its name changed', (d) => { header(d).name = 'api-version' }, ['2000-01-01 POST /users: header parameter x-api-version: renamed to api-version'], []],
    ['it moved to the query', (d) => { header(d).in = 'query' }, ['2000-01-01 POST /users: header parameter x-api-version: removed'],
      ['2000-01-01 POST /users: query parameter x-api-version: new optional parameter']]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const changes = consumerChanges(edit)
    t.same(lines(changes, true), breaks, `${name}: breaks`)
    t.same(lines(changes, false), notes, `${name}: notes`)
  }
})

test('the default version: requests naming none no longer served as the saved version break (the default was not compared)', async (t) => {
  const withDefault = (value: string | undefined) => (document: Json): void => {
    if (value === undefined) delete document.info['x-api-version-default']
    else document.info['x-api-version-default'] = value
  }
  const compare = (saved: string | undefined, current: string | undefined): DocumentChange[] => {
    const before = baseDocument()
    withDefault(saved)(before)
    const after = baseDocument()
    withDefault(current)(after)
    return compareDocuments('2000-01-01', before, after)
  }
  t.same(compare('2000-01-01', '2000-01-01'), [], 'the same default: nothing')
  t.same(lines(compare('2000-01-01', undefined), true), ['2000-01-01 requests naming no version: are refused (400) or served as a custom default decides; they were served as 2000-01-01'],
    'the default dropped')
  t.same(lines(compare('2000-01-01', '2001-01-01'), true), ['2000-01-01 requests naming no version: are served as 2001-01-01; they were served as 2000-01-01'],
    'another version became the default')
  t.same(lines(compare(undefined, '2000-01-01'), false), ['2000-01-01 requests naming no version: are served as 2000-01-01'], 'this version became the default: a note')
  t.same(compare('2001-01-01', undefined), [], "another version's default is not this version's clients' concern")
})

test('regression: the version\'s lifecycle clients plan by is compared (it was never reported): a sunset moved earlier breaks, the rest are notes', async (t) => {
  const exported = async (lifecycle: Record<string, unknown>): Promise<Json> => {
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', lifecycle)), async (api) => {
      api.get('/items', async () => ({ ok: true }))
    })
    await app.ready()
    return app.versioner.openapi('2000-01-01') as Json
  }
  const announced = await exported({ deprecatedAt: '2096-01-01', sunsetAt: '2097-03-01' })
  const compare = async (lifecycle: Record<string, unknown>): Promise<[string[], string[]]> => {
    const changes = compareDocuments('2000-01-01', announced, await exported(lifecycle))
    return [lines(changes, true), lines(changes, false)]
  }
  t.same(await compare({ deprecatedAt: '2096-01-01', sunsetAt: '2097-03-01' }), [[], []], 'the same lifecycle: nothing')
  t.same(await compare({ deprecatedAt: '2096-01-01', sunsetAt: '2096-12-01' }), [['2000-01-01 lifecycle: sunset 2097-03-01 → 2096-12-01, earlier than announced'], []],
    'a sunset moved earlier than its clients were told')
  t.same(await compare({ deprecatedAt: '2096-01-01', sunsetAt: '2097-06-01', afterSunset: 'gone', brownouts: [{ start: '2097-05-01T00:00:00Z', end: '2097-05-01T01:00:00Z' }] }), [[], [
    '2000-01-01 lifecycle: sunset 2097-03-01 → 2097-06-01',
    '2000-01-01 lifecycle: after its sunset serve → gone',
    '2000-01-01 lifecycle: brownouts none → 2097-05-01T00:00:00.000Z to 2097-05-01T01:00:00.000Z'
  ]], 'a later sunset, 410s after it and brownouts: notes')
  t.same(await compare({}), [[], ['2000-01-01 GET /items: deprecated removed (text)', '2000-01-01 lifecycle: deprecated since 2096-01-01 → none', '2000-01-01 lifecycle: sunset 2097-03-01 → none', '2000-01-01 lifecycle: after its sunset serve → none']],
    'a deprecation withdrawn: notes')
})

test('a first sunset already past when check runs is a break: the version\'s clients get no notice; a future one is a note', async (t) => {
  const exported = async (lifecycle: Record<string, unknown>): Promise<Json> => {
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', lifecycle)), async (api) => {
      api.get('/items', async () => ({ ok: true }))
    })
    await app.ready()
    return app.versioner.openapi('2000-01-01') as Json
  }
  const unannounced = await exported({})
  const compare = async (lifecycle: Record<string, unknown>): Promise<[string[], string[]]> => {
    const changes = compareDocuments('2000-01-01', unannounced, await exported(lifecycle))
    return [lines(changes, true), lines(changes, false).filter((line) => line.includes('sunset'))]
  }
  // A typo a year early (2026-09-01 for 2027-09-01, found by the corpus's sixth blind round): gone on release.
  t.same(await compare({ deprecatedAt: '2000-03-01', sunsetAt: '2000-09-01', afterSunset: 'gone' }),
    [['2000-01-01 lifecycle: sunset none → 2000-09-01, already past: announced by none, its clients get no notice'], ['2000-01-01 lifecycle: after its sunset none → gone']])
  t.same(await compare({ deprecatedAt: '2000-03-01', sunsetAt: '2999-09-01' }), [[], ['2000-01-01 lifecycle: sunset none → 2999-09-01', '2000-01-01 lifecycle: after its sunset none → serve']],
    'announced ahead: a note')
})

test('a path parameter renamed is a note: the same URLs (it was reported as "undefined: rename")', async (t) => {
  const changes = changed((d) => {
    const item = d.paths['/users/{userId}']
    item.get.parameters[0].name = 'id'
    d.paths['/users/{id}'] = item
    delete d.paths['/users/{userId}']
  })
  t.same(lines(changes, true), [])
  t.same(lines(changes, false), ['2000-01-01 /users/{userId}: path renamed to /users/{id}', '2000-01-01 GET /users/{userId}: path parameter userId: renamed to id'])
})

test('regression: a request type widened or a response type narrowed is a note saying so (any type change was a break)', async (t) => {
  const request = (d: Json): Json => d.components.schemas.UserCreateRequest.properties
  const response = (d: Json): Json => d.components.schemas.UserResource.properties
  const before = baseDocument()
  Object.assign(request(before), { age: { type: 'integer' }, kinds: { type: ['integer', 'string'] }, score: { type: 'number' }, tags: { type: 'array', items: { type: 'integer' } } })
  Object.assign(response(before), { count: { type: 'integer' }, ratio: { type: 'number' }, code: { type: ['integer', 'string'] } })
  before.paths['/users'].post.parameters.push({ in: 'query', name: 'limit', schema: { type: 'integer' } })
  const compared = (edit: (document: Json) => void): [string[], string[]] => {
    const after = structuredClone(before)
    edit(after)
    const changes = compareDocuments('2000-01-01', before, after)
    return [lines(changes, true), lines(changes, false)]
  }
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['a request field integer → number', (d) => { request(d).age.type = 'number' }, [],
      ["2000-01-01 POST /users: request body /age: type 'integer' → 'number' (widened: what it accepted, it accepts)"]],
    ['a request field to a list of types holding the old one', (d) => { request(d).age.type = ['integer', 'string'] }, [],
      ["2000-01-01 POST /users: request body /age: type 'integer' → ['integer', 'string'] (widened: what it accepted, it accepts)"]],
    ['a list of types given one more', (d) => { request(d).kinds.type.push('null') }, [],
      ["2000-01-01 POST /users: request body /kinds: type ['integer', 'string'] → ['integer', 'string', 'null'] (widened: what it accepted, it accepts)"]],
    ['request list items integer → number', (d) => { request(d).tags.items.type = 'number' }, [],
      ["2000-01-01 POST /users: request body /tags/*: type 'integer' → 'number' (widened: what it accepted, it accepts)"]],
    ['a query parameter integer → number', (d) => { d.paths['/users'].post.parameters[2].schema.type = 'number' }, [],
      ["2000-01-01 POST /users: query parameter limit /: type 'integer' → 'number' (widened: what it accepted, it accepts)"]],
    ['a response field number → integer', (d) => { response(d).ratio.type = 'integer' }, [], [
      "2000-01-01 POST /users: response 200 /ratio: type 'number' → 'integer' (narrowed: what it sends, it sent before)",
      "2000-01-01 GET /users/{userId}: response 200 /ratio: type 'number' → 'integer' (narrowed: what it sends, it sent before)"]],
    ['a response field to one of its types', (d) => { response(d).code.type = 'string' }, [], [
      "2000-01-01 POST /users: response 200 /code: type ['integer', 'string'] → 'string' (narrowed: what it sends, it sent before)",
      "2000-01-01 GET /users/{userId}: response 200 /code: type ['integer', 'string'] → 'string' (narrowed: what it sends, it sent before)"]],
    // The mirror cases stay breaks: an old client may send 1.5 and be refused, or receive 1.5.
    ['a request field number → integer', (d) => { request(d).score.type = 'integer' }, ["2000-01-01 POST /users: request body /score: type 'number' → 'integer'"], []],
    ['a request field to a list without the old type', (d) => { request(d).age.type = ['boolean', 'null'] },
      ["2000-01-01 POST /users: request body /age: type 'integer' → ['boolean', 'null']"], []],
    ['a query parameter integer → boolean', (d) => { d.paths['/users'].post.parameters[2].schema.type = 'boolean' },
      ["2000-01-01 POST /users: query parameter limit /: type 'integer' → 'boolean'"], []],
    // A value sent as a parameter arrives as a string; one sent in a body is coerced to one (Fastify's coerceTypes).
    ['a query parameter integer → string', (d) => { d.paths['/users'].post.parameters[2].schema.type = 'string' }, [],
      ["2000-01-01 POST /users: query parameter limit /: type 'integer' → 'string' (widened: what it accepted arrives as a string, which it accepts)"]],
    ['a request field to a list of string and null', (d) => { request(d).age.type = ['string', 'null'] }, [],
      ["2000-01-01 POST /users: request body /age: type 'integer' → ['string', 'null'] (widened: what it accepted is coerced to a string (Ajv's coerceTypes), which it accepts)"]],
    ['a response field integer → number', (d) => { response(d).count.type = 'number' },
      ["2000-01-01 POST /users: response 200 /count: type 'integer' → 'number'", "2000-01-01 GET /users/{userId}: response 200 /count: type 'integer' → 'number'"], []],
    ['a response field given a type more', (d) => { response(d).count.type = ['integer', 'null'] }, [
      "2000-01-01 POST /users: response 200 /count: type 'integer' → ['integer', 'null']",
      "2000-01-01 GET /users/{userId}: response 200 /count: type 'integer' → ['integer', 'null']"], []]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const [found, noted] = compared(edit)
    t.same(found, breaks, `${name}: breaks`)
    t.same(noted, notes, `${name}: notes`)
  }
})

test('regression: nullable and the assertions the diff library does not know are judged by side (they were notes)', async (t) => {
  const request = (edit: (fields: Json) => void): DocumentChange[] => changed((d) => { edit(d.components.schemas.UserCreateRequest) })
  const response = (edit: (fields: Json) => void): DocumentChange[] => changed((d) => { edit(d.components.schemas.UserResource) })
  const withSaved = (edit: (document: Json) => void, saved: (document: Json) => void): DocumentChange[] => {
    const before = baseDocument()
    saved(before)
    const after = baseDocument()
    saved(after)
    edit(after)
    return compareDocuments('2000-01-01', before, after)
  }
  const cases: Array<[string, DocumentChange[], boolean]> = [
    // Ajv and the serializer read `nullable: true` (an instruction's `nullable`): a response may now send null.
    ['a response field made nullable', response((s) => { s.properties.address.nullable = true }), true],
    ['a request field no longer nullable', withSaved((d) => { delete d.components.schemas.UserCreateRequest.properties.nickname.nullable },
      (d) => { d.components.schemas.UserCreateRequest.properties.nickname.nullable = true }), true],
    ['a request field made nullable', request((s) => { s.properties.nickname.nullable = true }), false],
    ['a response field no longer nullable', withSaved((d) => { delete d.components.schemas.UserResource.properties.address.nullable },
      (d) => { d.components.schemas.UserResource.properties.address.nullable = true }), false],
    // Ajv's coerceTypes turns a null sent for a string into '': the request is taken, its null lost.
    ['a request body field ["string", "null"] → "string"', withSaved((d) => { d.components.schemas.UserCreateRequest.properties.nickname.type = 'string' },
      (d) => { d.components.schemas.UserCreateRequest.properties.nickname.type = ['string', 'null'] }), true],
    ['dependentRequired added to a request', request((s) => { s.dependentRequired = { nickname: ['plan'] } }), true],
    ['if/then added to a request', request((s) => { s.if = { properties: { plan: { const: 'pro' } } }; s.then = { required: ['nickname'] } }), true],
    ['dependentRequired removed from a request', withSaved((d) => { delete d.components.schemas.UserCreateRequest.dependentRequired },
      (d) => { d.components.schemas.UserCreateRequest.dependentRequired = { nickname: ['plan'] } }), false],
    ['dependentRequired removed from a response', withSaved((d) => { delete d.components.schemas.UserResource.dependentRequired },
      (d) => { d.components.schemas.UserResource.dependentRequired = { address: ['status'] } }), true],
    ['dependentRequired added to a response', response((s) => { s.dependentRequired = { address: ['status'] } }), false],
    ['prefixItems added to a request list', withSaved((d) => { d.components.schemas.UserCreateRequest.properties.tags.prefixItems = [{ maxLength: 2 }] },
      (d) => { d.components.schemas.UserCreateRequest.properties.tags = { type: 'array', items: { type: 'string' } } }), true]
  ]
  for (const [name, changes, breaking] of cases) {
    t.ok(changes.length > 0, `${name}: reported`)
    t.equal(changes.some((change) => change.breaking), breaking, `${name}: ${breaking ? 'breaks' : 'a note'} (${changes.map((change) => change.text).join('; ')})`)
  }
})

test('regression: an operation now asking for credentials its old clients lack breaks (security added was a note, the document\'s unseen)', async (t) => {
  const schemes = (d: Json): void => { d.components.securitySchemes = { key: { type: 'apiKey', in: 'header', name: 'x-key' }, oauth: { type: 'oauth2', flows: {} } } }
  const cases: SidedCase[] = [
    ['security added to an operation', schemes, (d) => { d.paths['/users'].post.security = [{ key: [] }] }, true],
    ['security added to the document', schemes, (d) => { d.security = [{ key: [] }] }, true],
    ['a scope added to a requirement', (d) => { schemes(d); d.security = [{ oauth: ['read'] }] }, (d) => { d.security = [{ oauth: ['read', 'write'] }] }, true],
    ['an operation no longer anonymous', (d) => { schemes(d); d.security = [{ key: [] }]; d.paths['/users'].post.security = [] }, (d) => { delete d.paths['/users'].post.security }, true],
    ['another way in added', (d) => { schemes(d); d.security = [{ key: [] }] }, (d) => { d.security = [{ key: [] }, { oauth: [] }] }, false],
    ['security removed', (d) => { schemes(d); d.security = [{ key: [] }] }, (d) => { delete d.security }, false],
    ['an operation made anonymous', (d) => { schemes(d); d.security = [{ key: [] }] }, (d) => { d.paths['/users'].post.security = [] }, false]
  ]
  judgeCases(t, cases)
})

test('regression: const and format are judged by side where a client cannot feel the change (any change of them broke)', async (t) => {
  const cases: SidedCase[] = [
    ['a request const removed', (d) => { d.components.schemas.UserCreateRequest.properties.nickname.const = 'x' }, (d) => { delete d.components.schemas.UserCreateRequest.properties.nickname.const }, false],
    ['a response const added', () => {}, (d) => { d.components.schemas.UserResource.properties.address.const = 'x' }, false],
    ['a request const added', () => {}, (d) => { d.components.schemas.UserCreateRequest.properties.nickname.const = 'x' }, true],
    ['a response const removed', (d) => { d.components.schemas.UserResource.properties.address.const = 'x' }, (d) => { delete d.components.schemas.UserResource.properties.address.const }, true],
    ['a request const changed', (d) => { d.components.schemas.UserCreateRequest.properties.nickname.const = 'x' }, (d) => { d.components.schemas.UserCreateRequest.properties.nickname.const = 'y' }, true],
    ['a request format removed', (d) => { d.components.schemas.UserCreateRequest.properties.nickname.format = 'email' }, (d) => { delete d.components.schemas.UserCreateRequest.properties.nickname.format }, false],
    ['a request format added', () => {}, (d) => { d.components.schemas.UserCreateRequest.properties.nickname.format = 'email' }, true],
    // The serializer writes a Date by the response's format (`date`: the day only): a response format added breaks.
    ['a response format added', () => {}, (d) => { d.components.schemas.UserResource.properties.address.format = 'date' }, true],
    ['a response format removed', () => {}, (d) => { delete d.components.schemas.UserResource.properties.id.format }, true]
  ]
  judgeCases(t, cases)
})

test('regression: a place allowing a finite list of values is judged by those values (a request\'s const replaced by a pattern it matches broke)', async (t) => {
  const req = (d: Json): Json => d.components.schemas.UserCreateRequest.properties
  const res = (d: Json): Json => d.components.schemas.UserResource.properties
  const cases: SidedCase[] = [
    // `role` takes 'admin' or 'member': a member's const replaced by a pattern 'member' matches takes what it took.
    ['a request union member const → a pattern it matches', () => {}, (d) => { req(d).role.anyOf[1] = { type: 'string', pattern: '^mem' } }, false],
    ['a request union member const → a pattern it does not match', () => {}, (d) => { req(d).role.anyOf[1] = { type: 'string', pattern: '^x' } }, true],
    ['a request union of consts → a string pattern matching both', () => {}, (d) => { req(d).role = { type: 'string', pattern: '^(admin|member|owner)$' } }, false],
    ['a request union of consts → a string pattern matching one', () => {}, (d) => { req(d).role = { type: 'string', pattern: '^(admin|owner)$' } }, true],
    ['a request enum → a maxLength every member fits', () => {}, (d) => { req(d).plan.maxLength = 4 }, false],
    ['a request enum → a maxLength a member exceeds', () => {}, (d) => { req(d).plan.maxLength = 3 }, true],
    ['a request const → a minLength it fits', (d) => { req(d).nickname.const = 'abc' }, (d) => { req(d).nickname.minLength = 2 }, false],
    // A format's meaning is the application's Ajv's: not judged by the values.
    ['a request enum → a format', () => {}, (d) => { req(d).plan.format = 'email' }, true],
    // A response now sending one of a few values its old schema allowed: its clients take them.
    ['a response maxLength widened where it now sends one of an enum', (d) => { res(d).address.maxLength = 5 }, (d) => { res(d).address.maxLength = 10; res(d).address.enum = ['home'] }, false],
    ['a response maxLength widened', (d) => { res(d).address.maxLength = 5 }, (d) => { res(d).address.maxLength = 10 }, true],
    ['a response pattern removed where it now sends one value that matched', (d) => { res(d).address.pattern = '^h' }, (d) => { delete res(d).address.pattern; res(d).address.const = 'home' }, false],
    ['a response pattern removed where it now sends one value that did not match', (d) => { res(d).address.pattern = '^h' }, (d) => { delete res(d).address.pattern; res(d).address.const = 'away' }, true]
  ]
  judgeCases(t, cases)
})

test('regression: a change inside an assertion, `not`, and a tuple position\'s type are judged by side (they were the library\'s notes, or broke both ways)', async (t) => {
  const req = (d: Json): Json => d.components.schemas.UserCreateRequest
  const res = (d: Json): Json => d.components.schemas.UserResource
  const tuple = (types: string[]): Json => ({ type: 'array', items: types.map((type) => ({ type })), minItems: types.length, maxItems: types.length, additionalItems: false })
  const cases: SidedCase[] = [
    // A name more in a dependentRequired or then's required: a request that held the first without it is refused.
    ['a request dependentRequired grown', (d) => { req(d).dependentRequired = { nickname: ['plan'] } }, (d) => { req(d).dependentRequired.nickname.push('role') }, true],
    ['a response dependentRequired grown', (d) => { res(d).dependentRequired = { address: ['status'] } }, (d) => { res(d).dependentRequired.address.push('id') }, false],
    ['a request dependentRequired shrunk', (d) => { req(d).dependentRequired = { nickname: ['plan', 'role'] } }, (d) => { req(d).dependentRequired.nickname.pop() }, false],
    ['a response dependentRequired shrunk', (d) => { res(d).dependentRequired = { address: ['status', 'id'] } }, (d) => { res(d).dependentRequired.address.pop() }, true],
    ['a request then tightened', (d) => { req(d).if = { properties: { plan: { const: 'pro' } } }; req(d).then = { required: ['nickname'] } }, (d) => { req(d).then.required.push('role') }, true],
    ['a response else loosened', (d) => { res(d).if = { properties: { status: { const: 'active' } } }; res(d).else = { required: ['status'] } }, (d) => { res(d).else.required.pop() }, true],
    ['a request if changed', (d) => { req(d).if = { properties: { plan: { const: 'pro' } } }; req(d).then = { required: ['nickname'] } }, (d) => { req(d).if.properties.plan.const = 'free' }, true],
    ['a response if changed', (d) => { res(d).if = { properties: { status: { const: 'active' } } }; res(d).then = { required: ['status'] } }, (d) => { res(d).if.properties.status.const = 'closed' }, true],
    // `not` constrains: removed, what it refused is taken (a request gains, a response may send it).
    ['a request not removed', (d) => { req(d).properties.nickname.not = { const: '' } }, (d) => { delete req(d).properties.nickname.not }, false],
    ['a response not removed', (d) => { res(d).properties.address.not = { const: '' } }, (d) => { delete res(d).properties.address.not }, true],
    ['a response not added', () => {}, (d) => { res(d).properties.address.not = { const: '' } }, false],
    ['a request not added', () => {}, (d) => { req(d).properties.nickname.not = { const: '' } }, true],
    // A tuple position (TypeBox's Type.Tuple writes draft-07's items list; 2020-12's prefixItems) retyped: a response sends another type.
    ['a response tuple position retyped', (d) => { res(d).properties.point = tuple(['number', 'number']) }, (d) => { res(d).properties.point.items[1].type = 'string' }, true],
    ['a response prefixItems position retyped', (d) => { res(d).properties.point = { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] } }, (d) => { res(d).properties.point.prefixItems[1].type = 'string' }, true],
    ['a request prefixItems position retyped', (d) => { req(d).properties.point = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }] } }, (d) => { req(d).properties.point.prefixItems[1].type = 'number' }, true],
    ['a request tuple position widened', (d) => { req(d).properties.point = tuple(['integer', 'integer']) }, (d) => { req(d).properties.point.items[1].type = 'number' }, false],
    ['a response tuple position narrowed', (d) => { res(d).properties.point = tuple(['number', 'number']) }, (d) => { res(d).properties.point.items[1].type = 'integer' }, false]
  ]
  judgeCases(t, cases)
})

test('regression: a multipleOf changed is judged by what it divides (0.05 to 0.01 on a request broke, on a response was a note)', async (t) => {
  const step = (value: number) => (d: Json): void => { d.components.schemas.UserCreateRequest.properties.price = { type: 'number', multipleOf: value }; d.components.schemas.UserResource.properties.price = { type: 'number', multipleOf: value } }
  const req = (value: number) => (d: Json): void => { d.components.schemas.UserCreateRequest.properties.price.multipleOf = value }
  const res = (value: number) => (d: Json): void => { d.components.schemas.UserResource.properties.price.multipleOf = value }
  const cases: SidedCase[] = [
    // Every multiple of 0.05 is one of 0.01: the request takes what it took; the response may send 0.03.
    ['a request multipleOf 0.05 → 0.01', step(0.05), req(0.01), false],
    ['a response multipleOf 0.05 → 0.01', step(0.05), res(0.01), true],
    ['a request multipleOf 0.01 → 0.05', step(0.01), req(0.05), true],
    ['a response multipleOf 0.01 → 0.05', step(0.01), res(0.05), false],
    ['a request multipleOf 0.1 → 0.3', step(0.1), req(0.3), true],
    ['a response multipleOf 0.3 → 0.1', step(0.3), res(0.1), true],
    // Neither divides the other: 4 was taken (sent), 3 is now.
    ['a request multipleOf 2 → 3', step(2), req(3), true],
    ['a response multipleOf 2 → 3', step(2), res(3), true]
  ]
  judgeCases(t, cases)
})

test('regression: header names differ only in case is the same header (a header parameter "renamed" to X-Trace broke)', async (t) => {
  const before = baseDocument()
  before.paths['/users'].post.parameters.push({ in: 'header', name: 'X-Trace', required: false, schema: { type: 'string' } })
  before.paths['/users/{userId}'].get.responses[200].headers = { 'X-Rate-Limit': { schema: { type: 'integer' } } }
  const after = baseDocument()
  after.paths['/users'].post.parameters.push({ in: 'header', name: 'x-trace', required: false, schema: { type: 'string' } })
  after.paths['/users/{userId}'].get.responses[200].headers = { 'x-rate-limit': { schema: { type: 'integer' } } }
  t.same(compareDocuments('2000-01-01', before, after), [], 'the same headers, named in another case')
  // A query parameter's name keeps its case: it is another parameter.
  const query = changed((d) => { d.paths['/users'].post.parameters[1].name = 'DryRun' })
  t.ok(lines(query, true).length > 0, 'a query parameter renamed in case breaks')
})

test('regression: a status now documented under the range covering it compares with the range\'s response (it was "status removed")', async (t) => {
  const saved = baseDocument()
  saved.paths['/users'].post.responses = { 201: saved.paths['/users'].post.responses[200] }
  const ranged = (schema: Json): Json => {
    const current = structuredClone(saved)
    current.paths['/users'].post.responses = { '2XX': { description: 'Default Response', content: { 'application/json': { schema } } } }
    return current
  }
  const copy = structuredClone(saved)
  const same = compareDocuments('2000-01-01', saved, ranged({ $ref: '#/components/schemas/UserResource' }))
  t.same(saved, copy, 'the saved document is not changed')
  t.same(lines(same, true), [])
  t.same(lines(same, false), ['2000-01-01 POST /users: response 2XX: new status (the range now documenting 201, which 2000-01-01 documented)', '2000-01-01 POST /users: response 201: now documented under 2XX, the range covering it'])
  // What the range's response says of a 201 is compared, as a response: a field removed still breaks.
  const fewer = compareDocuments('2000-01-01', saved, ranged({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] }))
  t.same(lines(fewer, true), ['2000-01-01 POST /users: response 201 /address: removed', '2000-01-01 POST /users: response 201 /status: removed'])
  // A range another class of statuses (4XX) does not cover a 201; a range narrowed to one status is one removed.
  const other = structuredClone(saved)
  other.paths['/users'].post.responses = { '4XX': saved.paths['/users'].post.responses[201] }
  t.same(lines(compareDocuments('2000-01-01', saved, other), true), ['2000-01-01 POST /users: response 201: status removed', newStatus('4XX', '201: …')])
  t.same(lines(compareDocuments('2000-01-01', ranged({ type: 'object' }), saved), true), ['2000-01-01 POST /users: response 2XX: status removed'])
})

test('Fastify drops what a request object no longer takes (removeAdditional: true) and refuses it without (the old client is not told)', async (t) => {
  const sent = async (body: Json, ajv?: Json): Promise<[number, unknown]> => {
    const app = Fastify(ajv === undefined ? {} : { ajv: { customOptions: ajv } })
    t.teardown(() => app.close())
    app.post('/x', { schema: { body } }, async (request) => ({ received: request.body }))
    const response = await app.inject({ method: 'POST', url: '/x', payload: { a: 1, tag: 'x', 'x-k': 'v' } })
    return [response.statusCode, response.json().received]
  }
  const object = (more: Json): Json => ({ type: 'object', properties: { a: { type: 'integer' } }, ...more })
  t.same(await sent(object({ additionalProperties: { type: 'string' } })), [200, { a: 1, tag: 'x', 'x-k': 'v' }], 'a record takes them')
  t.same(await sent(object({ additionalProperties: false })), [200, { a: 1 }], 'false drops them')
  t.same(await sent(object({ additionalProperties: false }), { removeAdditional: false }), [400, undefined], 'or refuses them')
  t.same(await sent(object({ patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false })), [200, { a: 1, 'x-k': 'v' }], 'a pattern takes its fields')
  t.same(await sent(object({})), [200, { a: 1, tag: 'x', 'x-k': 'v' }], 'an object without additionalProperties takes them all')
})

test('regression: a request record whose additionalProperties becomes false breaks (it was a note); pattern properties removed', async (t) => {
  const request = (d: Json): Json => d.components.schemas.UserCreateRequest
  const before = baseDocument()
  request(before).properties.labels = { type: 'object', additionalProperties: { type: 'string' } }
  request(before).properties.meta = { type: 'object', patternProperties: { '^x-': { type: 'string' } } }
  request(before).properties.strict = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false }
  const compared = (edit: (document: Json) => void): [string[], string[]] => {
    const after = structuredClone(before)
    edit(after)
    const changes = compareDocuments('2000-01-01', before, after)
    return [lines(changes, true), lines(changes, false)]
  }
  const dropped = "the fields it took are dropped (refused where Ajv's removeAdditional is off)"
  const undeclared = "undeclared fields are dropped (refused where Ajv's removeAdditional is off)"
  const cases: Array<[string, (document: Json) => void, string[], string[]]> = [
    ['a record closed', (d) => { request(d).properties.labels.additionalProperties = false },
      [`2000-01-01 POST /users: request body /labels: additionalProperties {"type":"string"} → false: ${dropped}`], []],
    ['a pattern removed where other fields are dropped', (d) => { request(d).properties.strict.patternProperties = {} },
      ["2000-01-01 POST /users: request body /strict: pattern property '^x-' removed: the fields it matched are no longer taken"], []],
    ['a pattern removed where any field is taken', (d) => { delete request(d).properties.meta.patternProperties['^x-'] },
      [], ["2000-01-01 POST /users: request body /meta: pattern property '^x-' removed: the fields it matched are still taken"]],
    // Fields no schema declared were never the version's: Fastify's default drops them, and the declared ones arrive.
    ['an object closed', (d) => { request(d).additionalProperties = false }, [], [`2000-01-01 POST /users: request body /: additionalProperties (none) → false: ${undeclared}`]],
    ['an open object closed', (d) => { request(d).properties.meta.additionalProperties = false }, [],
      [`2000-01-01 POST /users: request body /meta: additionalProperties (none) → false: ${undeclared}`]]
  ]
  for (const [name, edit, breaks, notes] of cases) {
    const [found, noted] = compared(edit)
    t.same(found, breaks, `${name}: breaks`)
    t.same(noted, notes, `${name}: notes`)
  }
  // A response record closed was already a break (a field removed from what the client receives).
  const response = baseDocument()
  response.components.schemas.UserResource.additionalProperties = { type: 'string' }
  const closed = structuredClone(response)
  closed.components.schemas.UserResource.additionalProperties = false
  t.equal(lines(compareDocuments('2000-01-01', response, closed), true).length, 2)
})

/** What a plain Fastify app with `ajv` options answers an old client's request (status, and the body its handler got). */
async function served (t: Teardown, schema: Json, request: OldRequest, ajv?: Json): Promise<[number, Json]> {
  const app = Fastify(ajv === undefined ? {} : { ajv: { customOptions: ajv } })
  t.teardown(() => app.close())
  app.post('/x', { schema }, async (received) => ({ body: received.body }))
  const response = await app.inject({ method: 'POST', url: '/x', payload: request.payload, query: request.query })
  return [response.statusCode, response.statusCode === 200 ? response.json().body ?? {} : {}]
}

/** An old client's request, and the body fields its version documented (what it must still get to the handler). */
interface OldRequest { readonly payload?: Json, readonly query?: Record<string, string>, readonly documented: string[] }

/** A version's document of one route `POST /x` with Fastify's route schema (`body`, or `querystring` as parameters). */
function routeDocument (schema: Json): Json {
  const query = schema.querystring as Json | undefined
  const parameters = Object.entries(query?.properties ?? {}).map(([name, value]) => ({ in: 'query', name, required: (query?.required ?? []).includes(name), schema: value }))
  const body = schema.body === undefined ? {} : { requestBody: { content: { 'application/json': { schema: schema.body } } } }
  return { openapi: '3.1.0', info: { title: 'A', version: '2000-01-01' }, paths: { '/x': { post: { parameters, ...body, responses: { 200: { description: 'ok' } } } } } }
}

test('regression: check judges a request as the app\'s Ajv setup validates it (removeAdditional, useDefaults, coerceTypes), checked on Fastify', async (t) => {
  const object = (more: Json): Json => ({ type: 'object', properties: { a: { type: 'string' } }, ...more })
  const query = (n: Json, required = false): Json => ({ type: 'object', properties: { n }, ...(required ? { required: ['n'] } : {}) })
  /** [name, route schema before, after, an old client's request, [Ajv options, breaking]] */
  const cases: Array<[string, Json, Json, OldRequest, Array<[Json | undefined, boolean]>]> = [
    ['an open body closed', { body: object({}) }, { body: object({ additionalProperties: false }) }, { payload: { a: 'x', b: 'y' }, documented: ['a'] },
      [[undefined, false], [{ removeAdditional: false }, true], [{ removeAdditional: 'all' }, false], [{ removeAdditional: 'failing' }, false]]],
    ['a record closed', { body: object({ additionalProperties: { type: 'string' } }) }, { body: object({ additionalProperties: false }) },
      { payload: { a: 'x', b: 'y' }, documented: ['a', 'b'] }, [[undefined, true], [{ removeAdditional: false }, true], [{ removeAdditional: 'all' }, false]]],
    ['a pattern removed from an open object', { body: object({ patternProperties: { '^x-': { type: 'string' } } }) }, { body: object({}) },
      { payload: { a: 'x', 'x-k': 'v' }, documented: ['a', 'x-k'] }, [[undefined, false], [{ removeAdditional: 'all' }, true]]],
    ['a body field with a default made required', { body: object({ properties: { a: { type: 'string', default: 'd' } } }) },
      { body: object({ properties: { a: { type: 'string', default: 'd' } }, required: ['a'] }) }, { payload: {}, documented: [] },
      [[undefined, false], [{ useDefaults: false }, true]]],
    ['a query parameter with a default made required', { querystring: query({ type: 'integer', default: 10 }) }, { querystring: query({ type: 'integer', default: 10 }, true) },
      { query: {}, documented: [] }, [[undefined, false], [{ useDefaults: false }, true]]],
    // With coerceTypes false, an integer query parameter took no request at all (every value arrives as a string).
    ['a query parameter integer → string', { querystring: query({ type: 'integer' }) }, { querystring: query({ type: 'string' }) }, { query: { n: '5' }, documented: [] },
      [[undefined, false]]],
    ['a body field integer → string', { body: object({ properties: { a: { type: 'integer' } } }) }, { body: object({ properties: { a: { type: 'string' } } }) },
      { payload: { a: 5 }, documented: ['a'] }, [[undefined, false], [{ coerceTypes: false }, true]]],
    // An undeclared field the schema of additionalProperties refuses is refused, 400 (was a note).
    ['an open body given an additionalProperties schema', { body: object({}) }, { body: object({ additionalProperties: { type: 'integer' } }) },
      { payload: { a: 'x', b: 'y' }, documented: ['a'] }, [[undefined, true], [{ removeAdditional: false }, true], [{ removeAdditional: 'all' }, false], [{ removeAdditional: 'failing' }, false]]],
    ['a closed body given an additionalProperties schema', { body: object({ additionalProperties: false }) }, { body: object({ additionalProperties: { type: 'integer' } }) },
      { payload: { a: 'x', b: 'y' }, documented: ['a'] }, [[undefined, true], [{ removeAdditional: 'all' }, false]]],
    ['a closed body opened', { body: object({ additionalProperties: false }) }, { body: object({}) }, { payload: { a: 'x', b: 'y' }, documented: ['a'] }, [[undefined, false]]]
  ]
  for (const [name, before, after, request, setups] of cases) {
    for (const [ajv, breaking] of setups) {
      const label = `${name}, ${JSON.stringify(ajv ?? 'Fastify\'s defaults')}`
      const changes = compareDocuments('2000-01-01', routeDocument(before), routeDocument(after), ajv === undefined ? {} : { ajv: { customOptions: ajv } })
      t.ok(changes.length > 0, `${label}: a change is reported`)
      t.equal(changes.some((change) => change.breaking), breaking, `${label}: ${breaking ? 'breaks' : 'a note'} (${changes.map((change) => change.text).join('; ')})`)
      // The verdict is Fastify's: a break is a request the app now refuses, or a documented field it took now lost.
      const [statusBefore, receivedBefore] = await served(t, before, request, ajv)
      const [statusAfter, receivedAfter] = await served(t, after, request, ajv)
      t.equal(statusBefore, 200, `${label}: the old client was served`)
      const lost = statusAfter !== 200 || request.documented.some((key) => Object.hasOwn(receivedBefore, key) && !Object.hasOwn(receivedAfter, key))
      t.equal(lost, breaking, `${label}: on Fastify, ${lost ? 'refused or a field lost' : 'served with every documented field'}`)
    }
  }
})

test('regression: check judges requests as a validator compiler of the app\'s own validates them (TypeBoxValidatorCompiler: nothing dropped, defaulted or coerced)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const Before = Type.Object({ name: Type.String(), role: Type.Optional(Type.String({ default: 'member' })), n: Type.Integer() })
  const After = Type.Object({ name: Type.String(), role: Type.String({ default: 'member' }), n: Type.String() }, { additionalProperties: false })
  type Place = 'application' | 'scope' | 'route' | 'none'
  const appWith = async (Body: TSchema, place: Place): Promise<FastifyInstance> => {
    const app = Fastify()
    t.teardown(() => app.close())
    if (place === 'application') app.setValidatorCompiler(TypeBoxValidatorCompiler)
    await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']), docsUrl: null })
    await app.register(async (scope) => {
      if (place === 'scope') scope.setValidatorCompiler(TypeBoxValidatorCompiler)
      await scope.register(versioned(async (api) => {
        api.post('/users', { schema: { body: Body }, ...(place === 'route' ? { validatorCompiler: TypeBoxValidatorCompiler as never } : {}) }, async (request) => request.body)
      }))
    })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(Before, 'none'), dir)
  const payload = { name: 'a', n: 5, extra: 1 }
  const place = '2000-01-01 POST /users: request body'
  for (const where of ['application', 'scope', 'route'] as const) {
    const app = await appWith(After, where)
    const { breaks, notes } = await checkDocuments(app, dir)
    t.same(breaks.map((change) => change.text), [
      `${place} /role: became required`,
      `${place} /n: type 'integer' → 'string'`,
      `${place} /: additionalProperties (none) → false: undeclared fields are refused (400: Ajv's removeAdditional is off)`
    ], `compiler set on the ${where}: each a break`)
    t.same(notes, [], 'none a note')
    const sent = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload })
    t.equal(sent.statusCode, 400, 'the app refuses what the saved version took')
    t.match(sent.json().message, /body\/role Expected required property.*body\/extra Unexpected property.*body\/n Expected string/)
  }
  // Fastify's own Ajv (its defaults) fills, drops and coerces: notes, as before.
  t.same((await checkDocuments(await appWith(After, 'none'), dir)).breaks, [], 'Fastify\'s Ajv: no break')
})

test('regression: a response object\'s additionalProperties is judged by side (false added to a response broke)', async (t) => {
  const fields = (d: Json): Json => d.components.schemas.UserResource
  const saving = (value: unknown) => (d: Json): void => { fields(d).additionalProperties = value }
  const none = (): void => {}
  const cases: SidedCase[] = [
    // The serializer writes the declared fields only: a response closed sends nothing fewer; one given a schema, new fields.
    ['a response object closed', none, saving(false), false],
    ['a response object given a schema for other fields', none, saving({ type: 'string' }), false],
    // What `true` or a schema let the serializer write is dropped.
    ['a response object open to anything closed', saving(true), saving(false), true],
    ['a response record closed', saving({ type: 'string' }), saving(false), true],
    ['a closed response object opened', saving(false), (d) => { delete fields(d).additionalProperties }, true],
    ['a closed response object given a schema', saving(false), saving({ type: 'string' }), true],
    ['a response record open to anything', saving({ type: 'string' }), (d) => { delete fields(d).additionalProperties }, true]
  ]
  judgeCases(t, cases)
})

test('checkDocuments reads the app\'s Ajv setup: an object closed breaks where removeAdditional is off', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const appWith = async (closed: boolean, ajv?: Json): Promise<FastifyInstance> => {
    const Body = Type.Object({ name: Type.String() }, closed ? { additionalProperties: false } : {})
    const app = await versionedApp(t, bundleOf(['2000-01-01']), async (api) => {
      api.post('/users', { schema: { body: Body } }, async (request) => request.body)
    }, ajv === undefined ? {} : { fastify: { ajv: { customOptions: ajv } } })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(false), dir)
  const text = '2000-01-01 POST /users: request body /: additionalProperties (none) → false'
  t.same((await checkDocuments(await appWith(true), dir)).notes.map((change) => change.text).filter((line) => line.startsWith(text)),
    [`${text}: undeclared fields are dropped (refused where Ajv's removeAdditional is off)`], 'Fastify\'s defaults: a note')
  const strict = await appWith(true, { removeAdditional: false })
  t.same((await checkDocuments(strict, dir)).breaks.map((change) => change.text), [`${text}: undeclared fields are refused (400: Ajv's removeAdditional is off)`])
  const refused = await strict.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'a', extra: 1 } })
  t.equal(refused.statusCode, 400, 'the app refuses what the saved version took')
})

test('a schema given an $id (now a $ref) or inlined again compares as its content (it was "type \'object\' → (none)", and a removal unnamed)', async (t) => {
  // The plugin writes a schema with an $id as a component and one without inline: the same data either way.
  const inlined = (document: Json, name: string): Json => structuredClone(document.components.schemas[name])
  const inline = (d: Json): void => {
    d.paths['/users'].post.requestBody.content['application/json'].schema = inlined(d, 'UserCreateRequest')
    d.paths['/users/{userId}'].get.responses[200].content['application/json'].schema = inlined(d, 'UserResource')
    d.webhooks['user.created'].post.requestBody.content['application/json'].schema = inlined(d, 'UserResource')
  }
  const inlineDocument = (): Json => {
    const document = consumerDocument()
    inline(document)
    return document
  }
  t.same(compareDocuments('2000-01-01', consumerDocument(), inlineDocument()), [], '$ref saved, inline now')
  t.same(compareDocuments('2000-01-01', inlineDocument(), consumerDocument()), [], 'inline saved, $ref now')
  // A field nested as a $ref, inlined.
  const withHome = (home: (d: Json) => unknown): Json => {
    const document = consumerDocument()
    document.components.schemas.Address = { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] }
    document.components.schemas.UserResource.properties.home = home(document)
    return document
  }
  t.same(compareDocuments('2000-01-01', withHome(() => ({ $ref: '#/components/schemas/Address' })), withHome((d) => inlined(d, 'Address'))), [], 'a nested $ref inlined')
  // A recursive schema stays a $ref, its change reported once (not again in its children).
  const tree = (d: Json): void => {
    d.components.schemas.Node = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } }
    d.components.schemas.UserResource.properties.tree = { $ref: '#/components/schemas/Node' }
  }
  t.same(lines(consumerChanges((d) => { tree(d); delete d.components.schemas.Node.properties.name }, (() => { const d = consumerDocument(); tree(d); return d })()), true), [
    '2000-01-01 POST /users: response 200 /tree/name: removed', '2000-01-01 GET /users/{userId}: response 200 /tree/name: removed',
    '2000-01-01 QUERY /search: response 200 /tree/name: removed', '2000-01-01 webhook user.created: payload /tree/name: removed'
  ], 'a recursive schema')
  // A change made while inlining is named as any other.
  const changes = compareDocuments('2000-01-01', consumerDocument(), (() => {
    const document = inlineDocument()
    const schema = document.paths['/users/{userId}'].get.responses[200].content['application/json'].schema
    delete schema.properties.address
    schema.required = ['id']
    return document
  })())
  t.same(lines(changes, true), ['2000-01-01 GET /users/{userId}: response 200 /address: removed'])
  t.same(lines(changes, false), [])
})

test('regression: schemas referring to each other in a loop: a field removed is reported at every place holding it (the request side went unseen)', async (t) => {
  // File ↔ Folder: the diff library cut the loop where it entered it first and reused that cut answer elsewhere.
  const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
  const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } })
  const document = (bytes: boolean): Json => ({
    openapi: '3.0.3',
    info: { title: 'files', version: '2000-01-01' },
    components: {
      schemas: {
        File: { type: 'object', required: bytes ? ['title', 'bytes'] : ['title'], properties: { title: { type: 'string' }, ...(bytes ? { bytes: { type: 'integer' } } : {}), folder: ref('Folder') } },
        Folder: { type: 'object', required: ['name', 'files'], properties: { name: { type: 'string' }, files: { type: 'array', items: ref('File') }, parent: ref('Folder') } }
      }
    },
    paths: {
      '/files': { post: { requestBody: json(ref('File')), responses: { 200: { description: 'ok', ...json({ type: 'array', items: ref('File') }) } } } },
      '/folders': { post: { requestBody: json(ref('Folder')), responses: { 200: { description: 'ok', ...json(ref('Folder')) } } } }
    }
  })
  t.same(lines(compareDocuments('2000-01-01', document(true), document(false)), true), [
    '2000-01-01 POST /files: request body /bytes: removed', '2000-01-01 POST /files: response 200 /*/bytes: removed',
    '2000-01-01 POST /folders: request body /files/*/bytes: removed', '2000-01-01 POST /folders: response 200 /files/*/bytes: removed'
  ])
  t.same(compareDocuments('2000-01-01', document(true), document(true)), [], 'unchanged')
  // The loop broken: the field holding the repeated schema is itself a place, in every operation.
  const broken = document(true)
  delete broken.components.schemas.File.properties.folder
  t.same(lines(compareDocuments('2000-01-01', document(true), broken), true), [
    '2000-01-01 POST /files: request body /folder: removed', '2000-01-01 POST /files: response 200 /*/folder: removed',
    '2000-01-01 POST /folders: request body /files/*/folder: removed', '2000-01-01 POST /folders: response 200 /files/*/folder: removed'
  ], 'a loop broken')
  t.same(lines(compareDocuments('2000-01-01', broken, document(true)), true), [], 'a loop made: new fields, notes')
  const saved = document(true)
  const before = structuredClone(saved)
  compareDocuments('2000-01-01', saved, document(false))
  t.same(saved, before, 'the saved document is not changed')
})

test('every kind of app (named versions, QUERY routes, several APIs) reports nothing against its own snapshot', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = await everyKindOfApp(t)
  const output = { out: [] as string[], err: [] as string[] }
  const io = { out: (line: string) => { output.out.push(line) }, err: (line: string) => { output.err.push(line) } }
  const run = { dir, types: undefined, verifyOptions: {}, api: undefined }
  t.equal(await runOnApis(app, { ...run, command: 'export' }, io), 0)
  t.match(JSON.parse(await readFile(join(dir, 'a', 'unversioned.json'), 'utf8')).paths, { '/a/lookup': { 'x-query': {} } })
  output.out.length = 0
  t.equal(await runOnApis(app, { ...run, command: 'check' }, io), 0)
  t.same(output, {
    out: [
      '[a] check: no breaking change in 4 saved version(s) (2024-06-01.basil, 2025-01-01, 2025-06-01.dahlia, unversioned); 0 note(s).',
      '[b] check: no breaking change in 3 saved version(s) (unversioned, v1, v2); 0 note(s).'
    ],
    err: []
  })
})

async function appServing (t: Teardown, versions: string[], withNickname: boolean) {
  const User = Type.Object({ id: Type.String(), ...(withNickname ? { nickname: Type.String() } : {}) }, { $id: 'User' })
  const app = await versionedApp(t, bundleOf(versions), async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } }, async () => ({ id: 'a', nickname: 'n' }))
  })
  await app.ready()
  return app
}

test('a HEAD change with no version change, in random histories: every saved version judged by side', async (t) => {
  const head = async (seed: number, edit?: (s: Schemas) => void): Promise<FastifyInstance> => {
    const { app } = await buildApp(randomHistory(rng(seed)), undefined, edit)
    t.teardown(() => app.close())
    await app.ready()
    return app
  }
  for (const seed of [3, 4, 5]) {
    const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await exportDocuments(await head(seed), dir)
    // Closed: the serializer wrote the declared fields only (it broke every response and payload that holds it).
    const closed = await checkDocuments(await head(seed, (s) => { Object.assign(s.Address, { additionalProperties: false }) }), dir)
    t.same(closed.breaks.map((change) => change.text), [], `${seed}: a response object closed is no break`)
    t.ok(closed.notes.some((change) => change.place.startsWith('response 200')), `${seed}: but a note`)
    const required = await checkDocuments(await head(seed, (s) => { Object.assign(s.Query.properties, { page: Type.Integer() }); s.Query.required = ['page'] }), dir)
    t.ok(required.breaks.length > 0 && required.breaks.every((change) => change.kind === 'new required parameter'), `${seed}: a new required query parameter breaks`)
    t.same(new Set(required.breaks.map((change) => change.version)), new Set(closed.compared.filter((version) => version !== 'unversioned')), `${seed}: in every version`)
  }
})

test('checkDocuments compares every saved version with the app: removed versions break, new ones are notes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const before = await appServing(t, ['2001-01-01', '2000-01-01'], true)
  await exportDocuments(before, dir)

  const same = await checkDocuments(await appServing(t, ['2001-01-01', '2000-01-01'], true), dir)
  t.same(same, { breaks: [], notes: [], compared: ['2000-01-01', '2001-01-01', 'unversioned'] }, 'the same app: nothing to say (the changelog route makes an unversioned document)')

  const later = await checkDocuments(await appServing(t, ['2002-01-01', '2001-01-01'], true), dir)
  t.same(later.breaks.map((change) => change.text), ['2000-01-01: version removed'])
  t.same(later.notes.map((change) => change.text), ['2002-01-01: new version'])

  const broken = await checkDocuments(await appServing(t, ['2001-01-01', '2000-01-01'], false), dir)
  t.same(broken.breaks.map((change) => change.text), [
    '2000-01-01 GET /users/{id}: response 200 /nickname: removed',
    '2001-01-01 GET /users/{id}: response 200 /nickname: removed'
  ], 'a HEAD change without a version change breaks every saved version')
  t.match(broken.breaks[0], { version: '2000-01-01', operation: 'GET /users/{id}', place: 'response 200 /nickname', kind: 'removed', breaking: true })
})

/** An existing API adopting the plugin: `/v1/orders` unversioned, or moved into `versioned(...)`; `/health` stays outside. */
async function adoptingApp (t: Teardown, options: { ordersVersioned: boolean, defaultValue?: string, withTotal?: boolean }) {
  const Order = Type.Object({ id: Type.String(), ...(options.withTotal === false ? {} : { total: Type.Number() }) })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), ...(options.defaultValue === undefined ? {} : { apiVersionDefaultValue: options.defaultValue }) })
  app.get('/health', async () => ({ ok: true }))
  const orders = async (api: FastifyInstance): Promise<void> => {
    api.get('/orders', { schema: { response: { 200: Type.Array(Order) } } }, async () => [])
  }
  await app.register(async (v1) => {
    await v1.register(versioned(async (api) => { api.get('/customers', async () => []) }))
    await v1.register(options.ordersVersioned ? versioned(orders) : orders)
  }, { prefix: '/v1' })
  await app.ready()
  return app
}

test('regression: a route with no parameters that gains a required one breaks (it was "parameters: add (non-breaking)")', async (t) => {
  // An unversioned route (no version header) documents no parameters until it gets one.
  const appWith = async (parameters: Json): Promise<FastifyInstance> => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']) })
    app.get('/health', { schema: parameters }, async () => ({ ok: true }))
    await app.ready()
    return app
  }
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await exportDocuments(await appWith({}), dir)
  const required = await checkDocuments(await appWith({ querystring: Type.Object({ probe: Type.String() }), headers: Type.Object({ 'x-zone': Type.Optional(Type.String()) }) }), dir)
  t.same(required.breaks.map((change) => change.text), ['unversioned GET /health: query parameter probe: new required parameter'])
  t.same(required.notes.map((change) => change.text), ['unversioned GET /health: header parameter x-zone: new optional parameter'])
  // And the reverse: every parameter removed names each.
  const saved = consumerDocument()
  saved.paths['/users'].post.parameters = [{ in: 'query', name: 'dryRun', schema: { type: 'boolean' } }]
  t.same(lines(consumerChanges((d) => { delete d.paths['/users'].post.parameters }, saved), true), ['2000-01-01 POST /users: query parameter dryRun: removed'])
})

test('regression: an unversioned route moved into versioned(...) and served to requests naming no version by the default is no "endpoint removed"', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await exportDocuments(await adoptingApp(t, { ordersVersioned: false, defaultValue: '2000-01-01' }), dir)

  const moved = await checkDocuments(await adoptingApp(t, { ordersVersioned: true, defaultValue: '2000-01-01' }), dir)
  t.same(moved.breaks.map((change) => change.text), [], 'requests naming no version still get GET /v1/orders, as 2000-01-01')
  t.ok(moved.notes.some((change) => change.text === 'unversioned GET /v1/orders: moved into the versioned API; requests naming no version are served it as 2000-01-01'),
    'a note says where it went')

  const changed = await checkDocuments(await adoptingApp(t, { ordersVersioned: true, defaultValue: '2000-01-01', withTotal: false }), dir)
  t.same(changed.breaks.map((change) => change.text), ['unversioned GET /v1/orders: response 200 /*/total: removed'],
    'what the default version now answers is compared with what the route answered before')

  const refused = await checkDocuments(await adoptingApp(t, { ordersVersioned: true }), dir)
  t.same(refused.breaks.map((change) => change.text).filter((line) => line.startsWith('unversioned')), ['unversioned GET /v1/orders: endpoint removed'],
    'without a default, requests naming no version are refused: a break')
})

test('checkDocuments says what is wrong with the saved folder', async (t) => {
  const app = await appServing(t, ['2000-01-01'], true)
  await t.rejects(checkDocuments(app, join(tmpdir(), 'fastify-versioner-no-such-folder')), { code: 'FST_VERSIONER_TOOL', message: /cannot be read/ })
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await t.rejects(checkDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message: /holds no saved documents.*run export first/ })
  await writeFile(join(dir, '2000-01-01.json'), '{ not json')
  await t.rejects(checkDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message: /is not JSON/ })
})

// Issue 19, case 6: each of these used to compare as "no breaking change", turning the CI check off.
const corrupted: Array<[string, unknown, RegExp]> = [
  ['null', null, /is not an OpenAPI document: it holds null, where export writes an object/],
  ['an array', [], /it holds an array/],
  ['a string', 'openapi', /it holds a string/],
  ['a number', 3, /it holds a number/],
  ['an empty object', {}, /has no "openapi" field; check compares OpenAPI 3 documents/],
  ['a Swagger 2.0 document', { swagger: '2.0', info: { title: 'API', version: '2000-01-01' }, paths: {} }, /is a Swagger 2\.0 document \("swagger": "2\.0"\)/],
  ['"openapi": "2.0"', { ...baseDocument(), openapi: '2.0' }, /has "openapi": "2\.0"; check compares OpenAPI 3 documents/],
  ['"openapi": 3.1', { ...baseDocument(), openapi: 3.1 }, /has "openapi": 3\.1;/],
  ['"paths": null', { ...baseDocument(), paths: null }, /has "paths": null, where every OpenAPI document export writes has an object of paths/],
  ['"paths": []', { ...baseDocument(), paths: [] }, /has "paths": \[\],/],
  ['no paths', { openapi: '3.1.0', info: { title: 'API', version: '2000-01-01' } }, /has no "paths" field/],
  ['"webhooks": []', { ...baseDocument(), webhooks: [] }, /has "webhooks": \[\], which must be an object when present/],
  ['"components": null', { ...baseDocument(), components: null }, /has "components": null, which must be an object when present/],
  ['no info.version', { ...baseDocument(), info: { title: 'API' } }, /has no info\.version/],
  ["another version's document", { ...baseDocument(), info: { title: 'API', version: '2001-01-01' } }, /is the document of version '2001-01-01' \(its info\.version\), not of '2000-01-01'/]
]

test('compareDocuments refuses what is not an OpenAPI 3 document of the version, saved or current', async (t) => {
  for (const [name, document, message] of corrupted) {
    t.throws(() => compareDocuments('2000-01-01', document, baseDocument()), { code: 'FST_VERSIONER_TOOL', message }, `saved: ${name}`)
    t.throws(() => compareDocuments('2000-01-01', document, baseDocument()), { message: /^The saved document of version '2000-01-01' .*Restore it from version control, or run export again/ })
    t.throws(() => compareDocuments('2000-01-01', baseDocument(), document), { code: 'FST_VERSIONER_TOOL', message: /^The current document of version '2000-01-01' / }, `current: ${name}`)
  }
  const withWebhooks = { ...baseDocument(), webhooks: {} }
  t.same(compareDocuments('2000-01-01', withWebhooks, withWebhooks), [], 'webhooks as an object is fine')
})

test('checkDocuments refuses a corrupted saved document, naming the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = await appServing(t, ['2001-01-01', '2000-01-01'], true)
  await exportDocuments(app, dir)
  const file = join(dir, '2000-01-01.json')
  const good = await readFile(file, 'utf8')
  for (const [name, document, message] of corrupted) {
    await writeFile(file, JSON.stringify(document))
    await t.rejects(checkDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message }, name)
    await t.rejects(checkDocuments(app, dir), { message: `The saved document '${file}' ` }, `${name}: names the file`)
  }
  await writeFile(file, good)
  t.same((await checkDocuments(app, dir)).breaks, [], 'the exported document passes')
  await writeFile(join(dir, '2001-01-01.json'), good)
  await t.rejects(checkDocuments(app, dir), { message: `The saved document '${join(dir, '2001-01-01.json')}' is the document of version '2000-01-01' (its info.version), not of '2001-01-01' as its file name says.` },
    'a snapshot copied under the wrong name')
})

test('regression: a saved document written with a byte order mark or CRLF line endings (a Windows editor) reads as written (the BOM was "not JSON")', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = await appServing(t, ['2001-01-01', '2000-01-01'], true)
  await exportDocuments(app, dir)
  const file = join(dir, '2000-01-01.json')
  const good = await readFile(file, 'utf8')
  await writeFile(file, `\uFEFF${good.replaceAll('\n', '\r\n')}`)
  t.same(await checkDocuments(app, dir), { breaks: [], notes: [], compared: ['2000-01-01', '2001-01-01', 'unversioned'] })
  await writeFile(file, `\uFEFF\uFEFF${good}`)
  await t.rejects(checkDocuments(app, dir), { message: /is not JSON: at line 1, column 1, unexpected '\\ufeff'/ }, 'one mark only, at the start')
})

/** Defines `key` as an own property, as `JSON.parse` does (assigning `__proto__` would set the prototype instead). */
function put (target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

const compare = (saved: Json, current: Json): DocumentChange[] => compareDocuments('2000-01-01', saved, current)

test('fields named __proto__, constructor, toString or hasOwnProperty are ordinary fields', async (t) => {
  /** Breaks and notes: a name of Object.prototype used to add a note on a field `function Object() { [native code] }`. */
  const split = (changes: DocumentChange[]) => ({ breaks: lines(changes, true), notes: lines(changes, false) })
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    /** The base document with a response field and an object request field of that name. */
    const withField = (edit: (request: Json, response: Json) => void = () => {}): Json => {
      const document = baseDocument()
      const { UserCreateRequest, UserResource } = document.components.schemas
      put(UserResource.properties, name, { type: 'string' })
      put(UserCreateRequest.properties, name, { type: 'object', properties: { inner: { type: 'string' }, other: { type: 'string' } } })
      edit(UserCreateRequest.properties[name], UserResource)
      return document
    }
    t.same(split(compare(withField(), baseDocument())), {
      breaks: [
        `2000-01-01 POST /users: request body /${name}: removed`,
        `2000-01-01 POST /users: response 200 /${name}: removed`,
        `2000-01-01 GET /users/{userId}: response 200 /${name}: removed`
      ],
      notes: []
    }, `${name}: removed`)
    t.same(split(compare(baseDocument(), withField())), {
      breaks: [],
      notes: [
        `2000-01-01 POST /users: request body /${name}: new optional field`,
        `2000-01-01 POST /users: response 200 /${name}: new field`,
        `2000-01-01 GET /users/{userId}: response 200 /${name}: new field`
      ]
    }, `${name}: added`)
    t.same(split(compare(withField(), withField((request) => { request.type = 'string' }))),
      { breaks: [`2000-01-01 POST /users: request body /${name}: type 'object' → 'string'`], notes: [] }, `${name}: type changed`)
    t.same(split(compare(withField(), withField((request) => { delete request.properties.inner }))),
      { breaks: [`2000-01-01 POST /users: request body /${name}/inner: removed`], notes: [] }, `${name}: a field inside it removed`)
    t.same(split(compare(withField(), withField((request) => { request.required = ['inner'] }))),
      { breaks: [`2000-01-01 POST /users: request body /${name}/inner: became required`], notes: [] }, `${name}: a field inside it became required`)
    const required = withField()
    required.components.schemas.UserResource.required.push(name)
    t.same(split(compare(required, baseDocument())).breaks, [
      `2000-01-01 POST /users: request body /${name}: removed`,
      `2000-01-01 POST /users: response 200 /${name}: removed`,
      `2000-01-01 GET /users/{userId}: response 200 /${name}: removed`
    ], `${name}: a required field removed is said once`)
    const becameRequired = withField()
    becameRequired.components.schemas.UserCreateRequest.required.push(name)
    t.same(split(compare(withField(), becameRequired)), { breaks: [`2000-01-01 POST /users: request body /${name}: became required`], notes: [] }, `${name}: became required`)
    const renamedTo = baseDocument()
    const resource = renamedTo.components.schemas.UserResource
    put(resource.properties, name, resource.properties.address)
    delete resource.properties.address
    resource.required = ['id', name]
    t.same(split(compare(baseDocument(), renamedTo)), {
      breaks: [`2000-01-01 POST /users: response 200 /address: renamed to ${name}`, `2000-01-01 GET /users/{userId}: response 200 /address: renamed to ${name}`],
      notes: []
    }, `${name}: renamed to`)
    t.same(split(compare(renamedTo, baseDocument())), {
      breaks: [`2000-01-01 POST /users: response 200 /${name}: renamed to address`, `2000-01-01 GET /users/{userId}: response 200 /${name}: renamed to address`],
      notes: []
    }, `${name}: renamed from`)
    // A field holding one of that name, renamed.
    const holding = (field: string): Json => {
      const document = baseDocument()
      const { properties } = document.components.schemas.UserResource
      delete properties.address
      put(properties, field, { type: 'object', properties: {} })
      put(properties[field].properties, name, { type: 'string' })
      document.components.schemas.UserResource.required = ['id']
      return document
    }
    t.same(split(compare(holding('address'), holding('street'))).breaks,
      ['2000-01-01 POST /users: response 200 /address: renamed to street', '2000-01-01 GET /users/{userId}: response 200 /address: renamed to street'],
      `${name}: a field holding one renamed`)
    // A component of that name, through $refs (GET's with its first character URI-escaped, as a pointer may be).
    const asComponent = (document: Json): Json => {
      put(document.components.schemas, name, document.components.schemas.UserResource)
      delete document.components.schemas.UserResource
      document.paths['/users'].post.responses[200].content['application/json'].schema.$ref = `#/components/schemas/${name}`
      document.paths['/users/{userId}'].get.responses[200].content['application/json'].schema.$ref =
        `#/components/schemas/%${name.charCodeAt(0).toString(16)}${name.slice(1)}`
      return document
    }
    const withoutAddress = asComponent(baseDocument())
    delete withoutAddress.components.schemas[name].properties.address
    withoutAddress.components.schemas[name].required = ['id']
    t.same(split(compare(asComponent(baseDocument()), withoutAddress)).breaks,
      ['2000-01-01 POST /users: response 200 /address: removed', '2000-01-01 GET /users/{userId}: response 200 /address: removed'], `a component named ${name}`)
  }
})

test('api-smart-diff alone misses a __proto__ field: check marks such names before the diff', async (t) => {
  const withProto = (): Json => {
    const document = baseDocument()
    put(document.components.schemas.UserResource.properties, '__proto__', { type: 'string' })
    return document
  }
  // The reason for document-diff.ts; should a future api-smart-diff see it, the marking can go.
  t.same(apiCompare(withProto(), baseDocument()).diffs, [], 'the library sees no change')
  t.same(lines(compare(withProto(), baseDocument()), true), [
    '2000-01-01 POST /users: response 200 /__proto__: removed',
    '2000-01-01 GET /users/{userId}: response 200 /__proto__: removed'
  ])
  t.equal(Object.getPrototypeOf(withProto().components.schemas.UserResource.properties), Object.prototype, 'nothing set a prototype')
})

test('checkDocuments sees a __proto__ field a saved file loses', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = await appServing(t, ['2000-01-01'], true)
  await exportDocuments(app, dir)
  const file = join(dir, '2000-01-01.json')
  // The file on one line, as export wrote it before (check reads both forms), to edit as text.
  const text = JSON.stringify(JSON.parse(await readFile(file, 'utf8')))
  t.match(text, '"properties":{"id":{"type":"string"},', 'the User schema, as written')
  await writeFile(file, text.replace('"properties":{"id":{"type":"string"},', '"properties":{"id":{"type":"string"},"__proto__":{"type":"string"},"constructor":{"type":"string"},'))
  const result = await checkDocuments(app, dir)
  t.same(result.breaks.map((change) => change.text), [
    '2000-01-01 GET /users/{id}: response 200 /__proto__: removed',
    '2000-01-01 GET /users/{id}: response 200 /constructor: removed'
  ])
  t.same(result.notes, [])
})

/**
 * The base document with a response field nested `levels` objects deep (6 + 2 × levels levels of JSON), built as
 * text: JSON.stringify itself overflows the stack on such values.
 */
function deepDocument (levels: number): Json {
  const deep = '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + '}}'.repeat(levels)
  const text = JSON.stringify(baseDocument()).replace('"UserResource":{"type":"object","properties":{', `"UserResource":{"type":"object","properties":{"deep":${deep},`)
  return JSON.parse(text)
}

test('a document nested deeper than 256 levels is refused before any diff, saved or current', async (t) => {
  const deep = deepDocument(10_000)
  t.throws(() => compareDocuments('2000-01-01', deep, baseDocument()), {
    code: 'FST_VERSIONER_TOOL',
    message: "The saved document of version '2000-01-01' nests objects and arrays 20006 levels deep, where check compares at most 256 " +
      '(comparing deeper documents takes minutes, and no real API nests so deep). Restore it from version control, or run export again on the code that released that version.'
  })
  t.throws(() => compareDocuments('2000-01-01', baseDocument(), deep), {
    code: 'FST_VERSIONER_TOOL',
    message: "The current document of version '2000-01-01' nests objects and arrays 20006 levels deep, where check compares at most 256 " +
      '(comparing deeper documents takes minutes, and no real API nests so deep). Give deeply nested schemas an $id, so that the document refers to them as components.'
  })
  // The limit itself, on a deep but cheap extension of info (levels 3 to 256: nested arrays).
  const atLimit = (depth: number): Json => ({ ...baseDocument(), info: { title: 'API', version: '2000-01-01', 'x-deep': JSON.parse('['.repeat(depth - 2) + ']'.repeat(depth - 2)) } })
  t.same(compareDocuments('2000-01-01', atLimit(256), atLimit(256)), [], '256 levels are compared')
  t.throws(() => compareDocuments('2000-01-01', atLimit(257), atLimit(256)), { message: /nests objects and arrays 257 levels deep, where check compares at most 256/ }, '257 are not')
})

test('checkDocuments names the deep document: a saved file, or what the app serves now', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = await appServing(t, ['2000-01-01'], true)
  await exportDocuments(app, dir)
  const file = join(dir, '2000-01-01.json')
  const good = JSON.stringify(JSON.parse(await readFile(file, 'utf8')))
  const levels = '{"type":"object","properties":{"a":'.repeat(10_000) + '{"type":"string"}' + '}}'.repeat(10_000)
  await writeFile(file, good.replace('"properties":{"id":{"type":"string"},', `"properties":{"deep":${levels},"id":{"type":"string"},`))
  await t.rejects(checkDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message: `The saved document '${file}' nests objects and arrays 20006 levels deep, where check compares at most 256` })
  await writeFile(file, good)
  // A request body 130 objects deep (Fastify's serializer refuses response schemas past 100).
  let body: TSchema = Type.String()
  for (let level = 0; level < 130; level++) body = Type.Object({ a: body })
  const deepApp = await versionedApp(t, bundleOf(['2000-01-01']), async (api) => {
    api.post('/users', { schema: { body } }, async () => ({}))
  })
  await deepApp.ready()
  await t.rejects(checkDocuments(deepApp, dir), {
    code: 'FST_VERSIONER_TOOL',
    message: /^The document the app serves now for version '2000-01-01' nests objects and arrays \d+ levels deep, where check compares at most 256 .*Give deeply nested schemas an \$id/
  })
})

test("regression: an operation's own error status, now documented only by the plugin's generic answer, is a status removed (it was notes on the generic answer's fields)", async (t) => {
  const saved = baseDocument()
  const notFound = { description: 'No such user', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } } } }
  const generic = (status: string): Json => ({ $ref: `#/components/responses/${status === '404' ? 'FastifyVersionerNotFound' : 'FastifyVersionerBadRequest'}` })
  saved.components.schemas.FastifyVersionerError = { type: 'object', properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } }, required: ['statusCode', 'error', 'message'] }
  const errorResponse = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/FastifyVersionerError' } } } }
  saved.components.responses = { FastifyVersionerNotFound: errorResponse, FastifyVersionerBadRequest: errorResponse }
  saved.paths['/users'].post.responses[404] = notFound
  saved.paths['/users'].post.responses[400] = generic('400')
  const current = structuredClone(saved)
  // The route answers 422 for what was its 404: the plugin's generic 404 fills the place in the document.
  current.paths['/users'].post.responses[404] = generic('404')
  current.paths['/users'].post.responses[422] = notFound
  t.same(lines(compareDocuments('2000-01-01', saved, current), true), [
    "2000-01-01 POST /users: response 404: status removed (only the plugin's generic error answer is documented there now)",
    newStatus('422', '200: …, 404: …')
  ])
  // The plugin's own answers, unchanged, and an operation documenting its own 404 where the plugin's was: no break.
  const own = structuredClone(saved)
  own.paths['/users'].post.responses[400] = notFound
  t.same(lines(compareDocuments('2000-01-01', saved, structuredClone(saved)), true), [])
  t.same(lines(compareDocuments('2000-01-01', saved, own), true).filter((line) => line.includes('status removed')), [])
})

test("regression: an operation documenting its own 404 where the plugin's generic one was breaks on each field its clients lose (they were notes)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const appWith = async (notFound?: TSchema): Promise<FastifyInstance> => {
    const app = await versionedApp(t, new VersionBundle(new Version('2000-01-01')), async (api) => {
      api.get('/users/:id', { schema: { response: { 200: Type.Object({ id: Type.String() }), ...(notFound === undefined ? {} : { 404: notFound }) } } }, async (_request, reply) => {
        return await reply.code(404).send({ statusCode: 404, code: 'NO_USER', error: 'Not Found', message: 'No such user' })
      })
    })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(), dir)
  const narrower = await appWith(Type.Object({ error: Type.String() }))
  // What the serializer now writes for the 404: the old client's `message` is gone.
  t.same((await narrower.inject({ url: '/users/1', headers: { 'x-api-version': '2000-01-01' } })).json(), { error: 'Not Found' })
  const { breaks } = await checkDocuments(narrower, dir)
  t.same(breaks.map((found) => found.text).sort(), ['/code', '/message', '/statusCode'].map((field) => `2000-01-01 GET /users/{id}: response 404 ${field}: removed`))
  const same = Type.Object({ statusCode: Type.Integer(), code: Type.Optional(Type.String()), error: Type.String(), message: Type.String() })
  t.same((await checkDocuments(await appWith(same), dir)).breaks, [], 'its own 404 of the same fields: no break')
})

test('a webhook marked onlyExistsInOlderVersions: check reports it removed from each saved version that had it, and nothing where it was restored', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const Finalized = Type.Object({ id: Type.String() })
  const appWith = async (restoredBy: string | undefined): Promise<FastifyInstance> => {
    const Removal = changeClass('RemoveInvoiceFinalized', [endpoint('invoice.finalized', ['POST']).existed])
    const versions = new VersionBundle(...['2001-01-01', '2000-01-01'].map((value) => value === restoredBy ? new Version(value, Removal) : new Version(value)))
    const app = await versionedApp(t, versions, async (api) => { api.get('/ping', async () => ({ ok: true })) }, {
      beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'invoice.finalized', body: Finalized, onlyExistsInOlderVersions: restoredBy !== undefined }) }
    })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(undefined), dir)
  t.same((await checkDocuments(await appWith('2001-01-01'), dir)).breaks.map((change) => change.text), ['2001-01-01 webhook invoice.finalized: webhook removed'],
    'removed in a saved version: a break there, none in 2000-01-01 which still has it')
})

test('regression: a webhook added to carry a route\'s schema (a record, literals, base64 text) changes nothing of the route\'s: check reports the new webhook only', async (t) => {
  // The webhook's payload was written in its own form (patternProperties, const, contentEncoding) over the component
  // @fastify/swagger wrote for the route (additionalProperties, enum, format): check reported the route's record and
  // text changed, a break, for adding a webhook.
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const Stock = Type.Object({
    counts: Type.Record(Type.String(), Type.Integer()), kind: Type.Literal('stock'), blob: Type.String({ contentEncoding: 'base64' })
  }, { $id: 'Stock' })
  const appWith = async (webhook: boolean): Promise<FastifyInstance> => {
    const app = await versionedApp(t, bundleOf(['2001-01-01', '2000-01-01']), async (api) => {
      api.get('/stock', { schema: { response: { 200: Stock } } }, async () => ({ counts: {}, kind: 'stock' as const, blob: '' }))
    }, { beforeRoutes: (instance) => { if (webhook) instance.versioner.webhooks.add({ name: 'stock.changed', body: Stock }) } })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(false), dir)
  const result = await checkDocuments(await appWith(true), dir)
  t.same(result.breaks.map((change) => change.text), [], 'no break')
  t.same(result.notes.map((change) => change.text), ['2000-01-01 webhook stock.changed: new webhook', '2001-01-01 webhook stock.changed: new webhook'])
  const document = (await appWith(true)).versioner.openapi('2001-01-01') as { components: { schemas: Record<string, Record<string, unknown>> } }
  t.match(document.components.schemas.Stock, { properties: { counts: { additionalProperties: { type: 'integer' } }, kind: { enum: ['stock'] }, blob: { format: 'byte' } } })
})

test('regression: upgrading the package, its changelog endpoint\'s new entry types are notes, not breaks of the app', async (t) => {
  // test/fixtures/saved-documents/unversioned.json: written by an older release's `export` (one line), before the
  // changelog endpoint's entries had the type 'schema.attributes.changed'. That enum member, added by the package,
  // failed every team's check on the upgrade, its API unchanged.
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'unversioned.json'), await readFile(join(__dirname, '../fixtures/saved-documents/unversioned.json')))
  const app = await versionedApp(t, bundleOf(['2000-01-01']))
  await app.ready()
  const result = await checkDocuments(app, dir)
  t.same(result.breaks.map((change) => change.text), [], 'the app\'s API did not change')
  t.same(result.notes.map((change) => change.text).filter((line) => line.includes('/changelog')), [
    "unversioned GET /changelog: response 200 /versions/*/changes/*/instructions/*/type: enum member 'schema.attributes.changed' added " +
    "(the package's changelog endpoint, changed by a fastify-versioner release: see its CHANGELOG)"
  ])
  // The app's own change to the endpoint still breaks its clients (here the only unversioned route: the document goes).
  const without = await versionedApp(t, bundleOf(['2000-01-01']), undefined, { versioner: { changelogUrl: null } })
  await without.ready()
  t.same((await checkDocuments(without, dir)).breaks.map((change) => change.text), ['unversioned: version removed'])
})

test('regression: a union of $ref members: a member changed twice is compared with itself, not with its neighbour', async (t) => {
  // `api-smart-diff` paired members by fewest differences, and two different `$ref`s differ by one: a member with a
  // deprecated field and its sunset (two) was paired with another member, "type changed", a break.
  type Edit = (name: string) => Record<string, TSchema>
  const documentWith = async (edit: Edit): Promise<unknown> => {
    const member = (name: string) => Type.Object({ type: Type.Literal(name), note: Type.Optional(Type.String()), ...edit(name) }, { $id: name })
    const Payment = Type.Object({ pay: Type.Union([member('Card'), member('Bank'), member('Wallet')]) })
    const app = await versionedApp(t, bundleOf(['2000-01-01']), async (api) => {
      api.post('/payments', { schema: { body: Payment, response: { 200: Payment } } }, async (request) => request.body)
    })
    return (await app.inject('/openapi.json?version=2000-01-01')).json()
  }
  const plain = await documentWith(() => ({}))
  const deprecated = (form: string): Edit => (name) => ({ note: Type.Optional(Type.String({ deprecated: name === form ? { sunsetAt: '2030-01-01' } : true })) })
  for (const form of ['Card', 'Bank']) {
    for (const [before, after, what] of [[plain, await documentWith(deprecated(form)), 'deprecated'], [await documentWith(deprecated(form)), plain, 'no longer']] as const) {
      const changes = await compareDocuments('2000-01-01', before, after)
      t.same(changes.filter((change) => change.breaking).map((change) => change.text), [], `${form} in the object form, ${what}: no break`)
      t.ok(changes.some((change) => /request body \/pay\/note: deprecated/.test(change.text)), `${form}, ${what}: a note`)
    }
  }
  const twoFields = await compareDocuments('2000-01-01', plain, await documentWith((name): Record<string, TSchema> => name === 'Card' ? { memo: Type.Optional(Type.String()), tag: Type.Optional(Type.String()) } : {}))
  t.same(twoFields.filter((change) => change.breaking).map((change) => change.text), [], 'two optional fields added to one member: no break')
  t.ok(twoFields.some((change) => change.text.includes('/pay/memo')), 'but notes')
  const removed = await compareDocuments('2000-01-01', await documentWith((name): Record<string, TSchema> => name === 'Card' ? { memo: Type.String(), tag: Type.Optional(Type.String()) } : {}), plain)
  const breaks = removed.filter((change) => change.breaking).map((change) => change.text)
  t.ok(breaks.includes('2000-01-01 POST /payments: response 200 /pay/memo: removed'), 'a field a member\'s response loses still breaks, named')
  t.notOk(breaks.some((text) => text.includes('type changed')), 'in its member')
})

/** What a rule added to a request says to do. */
const FIX = 'a request it refuses now was accepted before: declare schema(…).validator(name).didntExist in the version change that adds it, ' +
  'so that older versions keep accepting them, and a request converter that makes their requests meet it'

test('regression: a rule a request schema gains beside its own keywords breaks (a named validator, an anyOf of required fields, was a note)', async (t) => {
  const req = (d: Json): Json => d.components.schemas.UserCreateRequest
  const res = (d: Json): Json => d.components.schemas.UserResource
  // What withValidators writes: the validator's fragment in the object's allOf.
  const rule = (): Json => ({ anyOf: [{ required: ['nickname'] }, { required: ['plan'] }] })
  const none = (): void => {}
  const pets = (order: string[]) => (d: Json): void => {
    d.components.schemas.Cat = { type: 'object', properties: { meows: { type: 'boolean' } }, required: ['meows'] }
    d.components.schemas.Dog = { type: 'object', properties: { barks: { type: 'boolean' } }, required: ['barks'] }
    req(d).properties.pet = { anyOf: order.map((name) => ({ $ref: `#/components/schemas/${name}` })) }
    res(d).properties.pet = { anyOf: order.map((name) => ({ $ref: `#/components/schemas/${name}` })) }
  }
  const cases: SidedCase[] = [
    ['a named validator added to a request', none, (d) => { req(d).allOf = [rule()] }, true],
    ['a named validator added to a response', none, (d) => { res(d).allOf = [rule()] }, false],
    ['a named validator removed from a request', (d) => { req(d).allOf = [rule()] }, (d) => { delete req(d).allOf }, false],
    ['a named validator removed from a response', (d) => { res(d).allOf = [rule()] }, (d) => { delete res(d).allOf }, true],
    ['a second named validator added to a request', (d) => { req(d).allOf = [{ required: ['plan'] }] }, (d) => { req(d).allOf.push(rule()) }, true],
    ['an if/then validator added to a request', none, (d) => { req(d).allOf = [{ if: { required: ['plan'] }, then: { required: ['nickname'] } }] }, true],
    ['an anyOf beside a request object\'s fields', none, (d) => { Object.assign(req(d), rule()) }, true],
    ['a oneOf beside a request object\'s fields', none, (d) => { req(d).oneOf = rule().anyOf }, true],
    ['an anyOf beside a response object\'s fields', none, (d) => { Object.assign(res(d), rule()) }, false],
    ['an anyOf of patterns beside a query parameter\'s type', none, (d) => { d.paths['/users'].post.parameters[1].schema = { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] } }, true],
    ['an anyOf beside a request field\'s type', none, (d) => { req(d).properties.nickname.anyOf = [{ minLength: 3 }, { pattern: '^@' }] }, true],
    ['a request rule widened (a member more in its anyOf)', (d) => { req(d).allOf = [rule()] }, (d) => { req(d).allOf[0].anyOf.push({ required: ['role'] }) }, false],
    ['a response rule widened (a member more in its anyOf)', (d) => { res(d).allOf = [rule()] }, (d) => { res(d).allOf[0].anyOf.push({ required: ['status'] }) }, true],
    ['a request rule narrowed (a member fewer in its anyOf)', (d) => { req(d).allOf = [rule()] }, (d) => { req(d).allOf[0].anyOf.pop() }, true],
    ['a request rule\'s description changed', (d) => { req(d).allOf = [{ ...rule(), description: 'a' }] }, (d) => { req(d).allOf[0].description = 'b'; req(d).description = 'c' }, false],
    // A new field holding a rule is a new field; a union of $refs reordered, the same union.
    ['a new optional request field holding a rule', none, (d) => { req(d).properties.card = { type: 'object', properties: { n: { type: 'string' } }, allOf: [{ anyOf: [{ required: ['n'] }] }] } }, false]
  ]
  judgeCases(t, cases)
  const reordered = baseDocument()
  pets(['Dog', 'Cat'])(reordered)
  t.same(compareDocuments('2000-01-01', (() => { const saved = baseDocument(); pets(['Cat', 'Dog'])(saved); return saved })(), reordered), [], 'a union of $refs reordered: no change')
  // The break names the version, operation, part and rule, and what to do.
  const [line] = changed((d) => { req(d).allOf = [rule()] }).filter((change) => change.breaking).map((change) => change.text)
  t.equal(line, `2000-01-01 POST /users: request body /: rule added: {"anyOf":[{"required":["nickname"]},{"required":["plan"]}]} (${FIX})`)
  // An object written as an allOf of objects (Type.Intersect) facing the same fields in one object: no change; with a rule, the rule.
  const intersected = (d: Json): void => {
    const { properties, required } = req(d)
    const [first, ...others] = Object.keys(properties)
    d.components.schemas.UserCreateRequest = {
      allOf: [{ type: 'object', properties: { [first]: properties[first] }, required }, { type: 'object', properties: Object.fromEntries(others.map((name) => [name, properties[name]])) }]
    }
  }
  t.same(changed(intersected).filter((change) => change.breaking), [], 'Type.Intersect facing one object: no break')
  t.same(changed((d) => { intersected(d); req(d).allOf.push(rule()) }).filter((change) => change.breaking).map((change) => change.kind.slice(0, 11)), ['rule added:'], 'with a rule: the rule')
})

test('regression: check fails a version change that adds a named validator to a request schema without validator(…).didntExist (CI was green, the old client refused)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const fields = { customerId: Type.Optional(Type.String()), statuses: Type.Optional(Type.Array(Type.String())), limit: Type.Optional(Type.Integer()) }
  const narrowed = defineValidator('searchIsNarrowed', { anyOf: [{ required: ['customerId'] }, { required: ['statuses'] }] })
  const appWith = async (rule: boolean, instructed: boolean): Promise<FastifyInstance> => {
    const Search = rule ? withValidators(Type.Object(fields, { $id: 'Search' }), narrowed) : Type.Object(fields, { $id: 'Search' })
    class SearchesAreNarrowed extends VersionChange {
      description = 'A search names a customer or statuses.'
      instructionsToMigrateToPreviousVersion = instructed ? [schema(Search).validator('searchIsNarrowed').didntExist] : []

      // An older search of everything is one of every status.
      @ConvertRequestToNextVersionFor(Search)
      everyStatus (request: RequestInfo) {
        if (instructed && request.body.customerId === undefined && request.body.statuses === undefined) request.body.statuses = ['open', 'paid']
      }
    }
    const app = await versionedApp(t, bundleOf(rule ? ['2001-01-01', '2000-01-01'] : ['2000-01-01'], { '2001-01-01': [SearchesAreNarrowed] }), async (api) => {
      api.post('/search', { schema: { body: Search, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => ({ count: 0 }))
    })
    await app.ready()
    return app
  }
  await exportDocuments(await appWith(false, false), dir)
  const send = async (app: FastifyInstance): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/search', headers: { 'x-api-version': '2000-01-01' }, payload: { limit: 50 } })).statusCode
  const forgotten = await appWith(true, false)
  t.equal(await send(forgotten), 400, 'the saved version\'s client is refused')
  const { breaks } = await checkDocuments(forgotten, dir)
  t.same(breaks.map((change) => change.text), [`2000-01-01 POST /search: request body /: rule added: {"anyOf":[{"required":["customerId"]},{"required":["statuses"]}]} (${FIX})`])
  const instructed = await appWith(true, true)
  t.equal(await send(instructed), 200, 'with the instruction (and a converter meeting the rule), the saved version\'s client is served')
  t.same((await checkDocuments(instructed, dir)).breaks, [], 'and check is green')
})
