/**
 * The upgrade guides of the two example applications (examples/users, examples/billing), read from their oldest version
 * to their newest as a client upgrading reads them: every example body is valid, closed, against the schema the
 * document of the version it claims gives it, keyed as that document keys it; an operation or webhook a change added
 * shows its examples in the version after the change; a renamed header shows the headers a client sends (decision 0333);
 * the amounts billing turned into cents read 12.34 and 1234, never 0 and 0 (decision 0336).
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { buildBillingApp } from '../../examples/billing/app'
import { bodyChecker, documentOf, type OpenApiDocument } from '../helpers/openapi-documents'
import type { JsonSchema } from '../helpers/schema-example'
import type { UpgradeChange } from '../../lib/docs/upgrade-guide'
import { guideOf } from '../helpers/docs-pages'

type Example = UpgradeChange['examples'][number]

const APPS = [
  { name: 'users', build: async () => await buildApp(), from: '2000-01-01', to: '2002-01-01' },
  { name: 'billing', build: async () => await buildBillingApp(), from: '2023-10-16', to: '2025-03-31' }
] as const

async function ready (t: Test, build: () => Promise<FastifyInstance>): Promise<FastifyInstance> {
  const app = await build()
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/** The schema a document gives an example's payload, found by the example's own keys (its status as the document keys it). */
function documentedSchema (document: OpenApiDocument, example: Example): JsonSchema | undefined {
  const json = (holder: any): JsonSchema | undefined => holder?.content?.['application/json']?.schema
  if (example.part === 'webhook payload') return json(document.webhooks?.[example.operation.replace(/^webhook /, '')]?.post?.requestBody)
  const [method, path] = example.operation.split(' ')
  const item = document.paths?.[path] as Record<string, any> | undefined
  const operation = method === 'QUERY' ? item?.['x-query'] : item?.[method.toLowerCase()]
  if (example.part === 'request body') return json(operation?.requestBody)
  if (example.part === 'request headers' || example.part === 'query string') {
    // The parameters of that kind, as one object schema: each a property, the required ones required.
    const parameters = ((operation?.parameters ?? []) as any[]).filter((parameter) => parameter.in === (example.part === 'query string' ? 'query' : 'header'))
    if (parameters.length === 0) return undefined
    return {
      type: 'object',
      properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
      required: parameters.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
      additionalProperties: false
    } as JsonSchema
  }
  const [status, media = 'application/json'] = (example.status ?? '').split(' ')
  let response = operation?.responses?.[status]
  if (typeof response?.$ref === 'string') response = document.components?.responses?.[response.$ref.split('/').pop() as string]
  return response?.content?.[media]?.schema
}

for (const { name, build, from, to } of APPS) {
  test(`the ${name} example's guide from ${from} to ${to}: every example is valid in the version it claims, keyed as its document keys it`, async (t) => {
    const app = await ready(t, build)
    const guide = await guideOf(app, from, to)
    const documents = new Map<string, OpenApiDocument>()
    const documented = (version: string): OpenApiDocument => documents.get(version) ?? documents.set(version, documentOf(app, version)).get(version) as OpenApiDocument
    let checked = 0
    for (const change of guide.changes) {
      for (const example of change.examples) {
        const sides = Object.hasOwn(example, 'before') ? [[change.previousVersion, example.before], [change.version, example.after]] as const : [[change.version, example.after]] as const
        for (const [version, value] of sides) {
          const document = documented(version)
          const schema = documentedSchema(document, example)
          const label = `${change.name}: ${example.operation} ${example.part}${example.status === undefined ? '' : ` (${example.status})`} in ${version}`
          if (schema === undefined) {
            t.fail(`${label}: the document has no such payload`)
            continue
          }
          t.equal(bodyChecker(document, { closed: true })(schema, value), undefined, `${label}: valid (${JSON.stringify(value)})`)
          checked++
        }
      }
    }
    t.ok(checked >= 10, `${checked} example bodies checked`)
  })
}

test('regression: an operation a change added had no example; it shows its request and response as the version after the change has them', async (t) => {
  const billing = await ready(t, buildBillingApp)
  const guide = await guideOf(billing, '2023-10-16', '2025-03-31')
  for (const change of guide.changes) {
    for (const operation of change.operations.filter((candidate) => candidate.status === 'added')) {
      const own = change.examples.filter((example) => example.operation === `${operation.method} ${operation.path}`)
      t.ok(own.some((example) => example.part === 'response body' && example.status === '200'), `${change.name}: ${operation.method} ${operation.path}: its response`)
      t.ok(own.every((example) => !Object.hasOwn(example, 'before')), `${change.name}: ${operation.method} ${operation.path}: no "before", it did not exist`)
    }
  }
  const put = guide.changes.find((change) => change.name === 'ReplaceCustomersWithPut')?.examples
  t.same(put?.map((example) => `${example.part} ${example.status ?? ''}`.trim()), ['request body', 'response body 200'], 'PUT /customers/{customerId}: its request body, then its response')
  t.same(put?.[0].after, { givenName: 'example', familyName: 'example', email: 'someone@example.com', memo: 'example' },
    'the request a client of 2024-04-10 sends, in its document\'s key order')

  const users = await ready(t, buildApp)
  const page = (await users.inject('/docs/upgrade?from=2001-01-01&to=2002-01-01')).body
  const addresses = page.slice(page.indexOf('<h4>GET /users/{userId}/addresses: response body (200)</h4>'))
  t.ok(addresses.length < page.length, 'the page shows the added endpoint\'s response')
  t.match(addresses, /^<h4>[^<]*<\/h4><div class="after"><h5>2002-01-01 \(added by this change\)<\/h5><pre>\{\n {2}&#34;data&#34;: \[/,
    'one body, of the version that added it, and no "before"')
})

test('regression: a renamed header had no example, only a note that the request body, which it does not touch, was the same', async (t) => {
  const billing = await ready(t, buildBillingApp)
  const [change] = (await guideOf(billing, '2024-09-30', '2025-03-31')).changes.filter((each) => each.name === 'DropThePrefixOfTheIdempotencyKeyHeader')
  t.same(change.examples, [{ operation: 'POST /invoices', part: 'request headers', before: { 'x-idempotency-key': 'example' }, after: { 'idempotency-key': 'example' } }],
    'the header a client of 2024-09-30 sends, and the one 2025-03-31 takes')
  t.same(change.notes, [], 'no note on the request body')
  const page = (await billing.inject('/docs/upgrade?from=2024-09-30&to=2025-03-31')).body
  t.match(page, '<h4>POST /invoices: request headers</h4>', 'the page shows it')
})

test('regression: a pair another change of the version makes (search by statuses) was shown twice, under the enum change too', async (t) => {
  const billing = await ready(t, buildBillingApp)
  const guide = await guideOf(billing, '2024-09-30', '2025-03-31')
  const search = guide.changes.flatMap((change) => change.examples.filter((example) => example.operation === 'QUERY /invoices/search' && example.part === 'request body')
    .map((example) => ({ change: change.name, before: example.before, after: example.after })))
  t.same(search, [{
    change: 'SearchInvoicesBySeveralStatuses',
    before: { customerId: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', status: 'draft', limit: 10 },
    after: { customerId: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', statuses: ['draft'], limit: 10 }
  }], 'once, under the change whose converter turns status into statuses')
  const enums = guide.changes.find((change) => change.name === 'AddUncollectibleAndRefundedInvoices')
  t.ok(enums?.notes.includes('QUERY /invoices/search request body: shown under SearchInvoicesBySeveralStatuses, whose converters make the difference ' +
    '(the example is the same: 2025-03-31 holds both changes)'), 'the enum change says where it is')
  const page = (await billing.inject('/docs/upgrade?from=2024-09-30&to=2025-03-31')).body
  t.equal(page.split('<h4>QUERY /invoices/search: request body</h4>').length, 2, 'the page shows it once')
})

/** The values of every `key` in a JSON value, in document order. */
function valuesOf (value: unknown, key: string): unknown[] {
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([name, inner]) => name === key ? [inner] : valuesOf(inner, key))
}

test('regression: billing\'s amounts read 0 -> 0 where they became cents (no examples on their schema); they show the conversion', async (t) => {
  const billing = await ready(t, buildBillingApp)
  const [amounts, types] = (await guideOf(billing, '2024-04-10', '2024-09-30')).changes
  t.same([amounts.name, types.name], ['AmountsInCents', 'PaymentMethodTypeReplacesObject'])
  t.same(amounts.notes, [], 'no note that POST /invoices\' request body is the same in both versions')
  t.same(amounts.examples.map((example) => `${example.operation} ${example.part}`), [
    'POST /invoices request body', 'POST /invoices response body', 'GET /invoices/{invoiceId} response body',
    'POST /invoices/{invoiceId}/pay response body', 'QUERY /invoices/search response body', 'webhook invoice.paid webhook payload'
  ], 'the request a client sends in units, then every response and the webhook')
  // Every pair of the version (its two changes' alike): each amount a decimal before, the same in cents after, never 0.
  let amountsSeen = 0
  for (const example of [...amounts.examples, ...types.examples]) {
    for (const key of ['unitAmount', 'total']) {
      const [before, after] = [valuesOf(example.before, key), valuesOf(example.after, key)]
      t.equal(before.length, after.length, `${example.operation} ${example.part}: as many ${key}s in both versions`)
      before.forEach((units, index) => {
        t.not(after[index], 0, `${example.operation} ${example.part}: ${key} is not 0`)
        t.equal(Math.round((units as number) * 100), after[index], `${example.operation} ${example.part}: ${key} ${String(units)} in units is ${String(after[index])} cents`)
        t.not(after[index] as number % 100, 0, `${example.operation} ${example.part}: ${key} has cents (a whole amount hides a rounding)`)
        amountsSeen++
      })
    }
    t.same(valuesOf(example.before, 'quantity'), valuesOf(example.after, 'quantity'), `${example.operation} ${example.part}: a quantity, which no converter changes, is the same`)
  }
  t.ok(amountsSeen >= 20, `${amountsSeen} amounts checked`)
  const page = (await billing.inject('/docs/upgrade?from=2024-04-10&to=2024-09-30')).body
  t.match(page, /&#34;unitAmount&#34;: 12\.34[\s\S]*&#34;unitAmount&#34;: 1234\b/, 'the page shows a line\'s amount in units, then in cents')
})
