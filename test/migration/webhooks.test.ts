import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import Fastify from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, migrateResponseBody, schema, Version,
  VersionBundle, VersionChange, type RequestInfo, type ResponseInfo, type WebhookDefinition
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { documentOf, operationsOf, validationError } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'
import { caught, rejection } from '../helpers/errors'

const ping = async (api: { get: (url: string, handler: () => Promise<unknown>) => unknown }): Promise<void> => {
  api.get('/ping', async () => ({ ok: true }))
}

test('webhooks.add checks declarations (FST_VERSIONER_STRUCTURE), chains, and is refused after ready', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  const body = Type.Object({ id: Type.String() })
  const webhooks = app.versioner.webhooks
  const bad: Array<[string, unknown]> = [
    ['no name', { body }],
    ['an empty name', { name: '', body }],
    ['a name that is not a string', { name: 42, body }],
    ['no body', { name: 'user.created' }],
    ['a body that is not a schema', { name: 'user.created', body: 'UserResource' }],
    ['not an object', undefined],
    // regression: `endpoint('/users', ['POST'])` changed the route and a webhook named '/users' both; no instruction names 'invoice paid'
    ['a name starting with / (instructions read it as a route path)', { name: '/users', body }],
    ['a name with whitespace (no instruction can name it)', { name: 'invoice paid', body }]
  ]
  for (const [what, definition] of bad) {
    t.equal(caught(() => webhooks.add(definition as WebhookDefinition))?.code, 'FST_VERSIONER_STRUCTURE', `${what}: FST_VERSIONER_STRUCTURE`)
  }
  t.equal(webhooks.list().length, 0, 'nothing bad was declared')
  t.equal(webhooks.add({ name: 'user.created', body }), webhooks, 'add returns the webhooks, for chaining')
  const duplicate = caught(() => webhooks.add({ name: 'user.created', method: 'POST', body }))
  t.equal(duplicate?.code, 'FST_VERSIONER_STRUCTURE', 'the same name and method twice')
  t.match(duplicate?.message, 'user.created')
  t.equal(caught(() => webhooks.add({ name: 'user.created', method: 'put', body })), undefined, 'the same name with another method is another webhook')
  t.strictSame(webhooks.list().map((webhook) => [webhook.name, webhook.method]), [['user.created', 'POST'], ['user.created', 'PUT']],
    'methods default to POST and are upper-cased')
  await app.register(async (instance) => { instance.get('/ping', async () => ({ ok: true })) })
  await app.ready()
  const late = caught(() => webhooks.add({ name: 'user.deleted', body }))
  t.ok(late, 'declaring after ready throws')
  t.equal(late?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(late?.message, /before app\.ready\(\)/, 'the message says webhooks are declared before ready')
  t.equal(webhooks.list().length, 2, 'the late webhook was not added')
})

test("each version's document lists the webhooks under `webhooks` with that version's body schema", async (t) => {
  const UserEvent = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserEvent' })
  const Deleted = Type.Object({ id: Type.String() })
  const Change = changeClass('ListOfAddresses', [schema(UserEvent).field('addresses').had({ name: 'address', type: Type.String() })])
  const versions = new VersionBundle(new Version('2001-01-01', Change), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, ping, {
    health: true,
    beforeRoutes: (instance) => {
      instance.versioner.webhooks
        .add({ name: 'user.created', body: UserEvent, summary: 'A user was created', description: 'Sent once.', tags: ['users'], operationId: 'userCreated' })
        .add({ name: 'user.deleted', method: 'delete', body: Deleted, deprecated: true })
    }
  })
  await app.ready()
  const shapes: Record<string, unknown> = {
    '2001-01-01': { type: 'object', required: ['id', 'addresses'], properties: { id: { type: 'string' }, addresses: { type: 'array', items: { type: 'string' } } } },
    '2000-01-01': { type: 'object', required: ['id', 'address'], properties: { id: { type: 'string' }, address: { type: 'string' } } }
  }
  for (const version of ['2001-01-01', '2000-01-01']) {
    const document = documentOf(app, version)
    t.equal(document.openapi, '3.1.0', `${version}: OpenAPI 3.1 (webhooks)`)
    t.strictSame(operationsOf(document, 'webhooks').map(({ path: name, method }) => [name, method]), [['user.created', 'POST'], ['user.deleted', 'DELETE']])
    const created = document.webhooks['user.created'].post
    t.equal(created.summary, 'A user was created')
    t.equal(created.description, 'Sent once.')
    t.strictSame(created.tags, ['users'])
    t.equal(created.operationId, 'userCreated')
    t.notOk(created.deprecated)
    t.equal(created.requestBody.required, true)
    t.strictSame(created.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/UserEvent' }, 'a named body is a component')
    t.same(document.components.schemas.UserEvent, shapes[version], `${version}: the body as ${version} has it`)
    t.ok(created.responses, 'with responses')
    const deleted = document.webhooks['user.deleted'].delete
    t.equal(deleted.deprecated, true)
    t.same(deleted.requestBody.content['application/json'].schema, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      'an unnamed body is inline')
    t.notOk(document.paths?.['user.created'], 'webhooks are not paths')
    t.equal(await validationError(document), undefined, `${version}: the document is valid`)
  }
  t.notOk(documentOf(app, 'unversioned').webhooks, 'the unversioned document has no webhooks')
  const served = await app.inject({ url: '/openapi.json?version=2000-01-01' })
  t.ok(JSON.parse(served.body).webhooks?.['user.created'], 'GET /openapi.json serves them')
})

test('endpoint instructions naming a webhook: didntExist removes it from older versions, had changes it; the changelog lists them', async (t) => {
  const Created = Type.Object({ id: Type.String() }, { $id: 'UserCreated' })
  const Renamed = Type.Object({ id: Type.String() })
  const Newest = changeClass('AddUserDeleted', [
    endpoint('user.deleted', ['POST']).didntExist,
    endpoint('user.created', ['POST']).had({ summary: 'Old summary', deprecated: true })
  ])
  const Oldest = changeClass('RenameEvent', [endpoint('account.renamed', ['PUT']).had({ path: 'user.renamed' })])
  const versions = new VersionBundle(new Version('2002-01-01', Newest), new Version('2001-01-01', Oldest), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, ping, {
    beforeRoutes: (instance) => {
      instance.versioner.webhooks
        .add({ name: 'user.created', body: Created, summary: 'A user was created' })
        .add({ name: 'user.deleted', body: Created })
        .add({ name: 'account.renamed', method: 'PUT', body: Renamed })
    }
  })
  await app.ready()
  const names = (version: string): string[] => operationsOf(documentOf(app, version), 'webhooks').map(({ path: name, method }) => `${method} ${name}`)
  // Documents list webhooks in canonical (sorted) order, whatever order they were declared in.
  t.strictSame(names('2002-01-01'), ['PUT account.renamed', 'POST user.created', 'POST user.deleted'])
  t.strictSame(names('2001-01-01'), ['PUT account.renamed', 'POST user.created'], 'user.deleted did not exist in 2001-01-01')
  t.strictSame(names('2000-01-01'), ['POST user.created', 'PUT user.renamed'], 'had({ path }) renames a webhook')
  t.equal(documentOf(app, '2002-01-01').webhooks['user.created'].post.summary, 'A user was created')
  t.notOk(documentOf(app, '2002-01-01').webhooks['user.created'].post.deprecated)
  const old = documentOf(app, '2001-01-01').webhooks['user.created'].post
  t.equal(old.summary, 'Old summary', 'had({ summary }) applies to the older version')
  t.equal(old.deprecated, true)
  for (const version of ['2002-01-01', '2001-01-01', '2000-01-01']) {
    t.equal(await validationError(documentOf(app, version)), undefined, `${version}: the document is valid`)
  }
  const changelog = app.versioner.changelog()
  t.strictSame(changelog.versions[0].changes[0].instructions[0], { type: 'endpoint.added', path: 'user.deleted', methods: ['POST'] })
  t.match(changelog.versions[0].changes[0].instructions[1], {
    type: 'endpoint.changed',
    path: 'user.created',
    methods: ['POST'],
    changes: [{ name: 'summary', status: 'changed', previousValue: 'Old summary', newValue: 'A user was created' }, { name: 'deprecated', previousValue: true }]
  })

  const Missing = changeClass('NoSuchWebhook', [endpoint('user.updated', ['POST']).didntExist])
  const broken = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Missing), new Version('2000-01-01')), ping, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'user.created', body: Created }) }
  })
  const error = await rejection(() => broken.ready())
  t.equal(error?.code, 'FST_VERSIONER_ROUTER_GENERATION', 'an instruction naming no route and no webhook fails at ready')
  t.match(error?.message, /user\.updated.*NoSuchWebhook/)
})

test('a webhook declared onlyExistsInOlderVersions is absent from HEAD and the latest version until existed restores it', async (t) => {
  const Finalized = Type.Object({ id: Type.String() })
  const definition: WebhookDefinition<typeof Finalized> = { name: 'invoice.finalized', body: Finalized, onlyExistsInOlderVersions: true }
  const Removal = changeClass('RemoveInvoiceFinalized', [endpoint('invoice.finalized', ['POST']).existed])
  const versions = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', Removal), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, ping, { beforeRoutes: (instance) => { instance.versioner.webhooks.add(definition) } })
  await app.ready()
  const names = (version: string): string[] => operationsOf(documentOf(app, version), 'webhooks').map(({ path: name, method }) => `${method} ${name}`)
  t.strictSame(names('2002-01-01'), [], 'the latest version does not have it')
  t.strictSame(names('2001-01-01'), [], 'nor the version that removed it')
  t.strictSame(names('2000-01-01'), ['POST invoice.finalized'], 'the version before its removal has it')
  t.strictSame(definition, { name: 'invoice.finalized', body: Finalized, onlyExistsInOlderVersions: true }, 'the definition is not changed')
  const changelog = app.versioner.changelog()
  t.strictSame(changelog.versions[1].changes[0].instructions, [{ type: 'endpoint.removed', path: 'invoice.finalized', methods: ['POST'] }],
    'the changelog says 2001-01-01 removed it')

  const never = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), ping, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add(definition) }
  })
  const error = await rejection(() => never.ready())
  t.equal(error?.code, 'FST_VERSIONER_ROUTER_GENERATION', 'marked and never restored: the start-up error of such a route')
  t.match(error?.message, /never restored: \[POST\] invoice\.finalized/)
})

test('endpoint(name, methods, { operationId }) names a webhook by its operationId', async (t) => {
  const Created = Type.Object({ id: Type.String() })
  const Change = changeClass('OldSummary', [endpoint('user.created', ['POST'], { operationId: 'userCreated' }).had({ summary: 'Old summary' })])
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Change), new Version('2000-01-01')), ping, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'user.created', body: Created, summary: 'A user was created', operationId: 'userCreated' }) }
  })
  await app.ready()
  t.equal(documentOf(app, '2001-01-01').webhooks['user.created'].post.summary, 'A user was created')
  t.equal(documentOf(app, '2000-01-01').webhooks['user.created'].post.summary, 'Old summary', 'the instruction applies to the named webhook')
})

test('a by-schema response converter of a schema only a webhook body uses needs no checkUsage: false', async (t) => {
  const build = async (body: TSchema, Converted: TSchema, request: boolean): Promise<Error | undefined> => {
    class Change extends VersionChange {
      description = 'A converter for a webhook payload.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertResponseToPreviousVersionFor(Converted)
      toOld (response: ResponseInfo) {
        response.body.old = true
      }
    }
    class RequestChange extends VersionChange {
      description = 'A request converter for a webhook payload.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertRequestToNextVersionFor(Converted)
      fromOld (info: RequestInfo) {
        delete info.body.old
      }
    }
    const versions = new VersionBundle(new Version('2001-01-01', ...(request ? [RequestChange] : [Change])), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, ping, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'user.created', body }) } })
    return rejection(() => app.ready())
  }
  const UserEvent = Type.Object({ id: Type.String() })
  t.equal(await build(UserEvent, UserEvent, false), undefined, 'the webhook body itself')
  const Nested = Type.Object({ id: Type.String() })
  t.equal(await build(Type.Object({ type: Type.String(), data: Nested }), Nested, false), undefined, 'a schema nested in the webhook body')
  const Orphan = Type.Object({ id: Type.String() })
  t.equal((await build(UserEvent, Orphan, false) as Error & { code?: string })?.code, 'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED',
    'a schema nothing uses is still an error')
  const OnlyWebhook = Type.Object({ id: Type.String() })
  t.equal((await build(OnlyWebhook, OnlyWebhook, true) as Error & { code?: string })?.code, 'FST_VERSIONER_REQUEST_CONVERTER_UNUSED',
    'a webhook body is sent, not received: a request converter of it still needs checkUsage: false')
})

test('migrateResponseBody: the payload for a subscriber on an older version, bound and standalone', async (t) => {
  const UserEvent = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserEvent' })
  const Envelope = Type.Object({ type: Type.String(), data: UserEvent })

  class ListOfAddresses extends VersionChange {
    description = 'Users have several addresses.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserEvent).field('addresses').had({ name: 'address', type: Type.String() }),
      schema(UserEvent).formerField('source').existedAs({ type: Type.String(), default: 'api' })
    ]

    @ConvertResponseToPreviousVersionFor(UserEvent)
    toSingleAddress (response: ResponseInfo) {
      response.body.address = response.body.addresses[0]
      delete response.body.addresses
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', ListOfAddresses), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, ping, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'user.created', body: UserEvent }).add({ name: 'user.event', body: Envelope }) }
  })
  await app.ready()
  const latestBody = { id: 'u1', addresses: ['1 Main St', '2 High St'], internal: 'x' }
  const old = { id: 'u1', address: '1 Main St', source: 'api' }
  t.strictSame(app.versioner.migrateResponseBody(UserEvent, { latestBody, version: '2000-01-01' }), old,
    'converted, filled with the version\'s defaults, unknown fields removed')
  t.strictSame(app.versioner.migrateResponseBody(UserEvent, { latestBody, version: '2001-01-01' }), { id: 'u1', addresses: ['1 Main St', '2 High St'] },
    'the latest version: unchanged but for unknown fields')
  t.strictSame(migrateResponseBody(versions, UserEvent, { latestBody, version: '2000-01-01' }), old, 'the standalone function gives the same')
  t.strictSame(migrateResponseBody(versions, UserEvent, { latestBody, version: '2000-07-15' }), old, 'a date between versions waterfalls')
  t.strictSame(app.versioner.migrateResponseBody(UserEvent, { latestBody, version: new Date('2000-03-01T00:00:00Z') }), old, 'a Date too')
  t.strictSame(app.versioner.migrateResponseBody(Envelope, { latestBody: { type: 'user.event', data: latestBody }, version: '2000-01-01' }),
    { type: 'user.event', data: old }, 'a payload nesting the schema')
  t.strictSame(latestBody, { id: 'u1', addresses: ['1 Main St', '2 High St'], internal: 'x' }, 'the latest body is not changed')
  t.equal(caught(() => migrateResponseBody(versions, UserEvent, { latestBody, version: '1999-01-01' }))?.code, 'FST_VERSIONER_UNKNOWN_VERSION',
    'older than the oldest version')
  t.equal(caught(() => app.versioner.migrateResponseBody(UserEvent, { latestBody, version: 'soon' }))?.code, 'FST_VERSIONER_UNKNOWN_VERSION')
  // The payload is what the version's document says the webhook sends.
  const documented = documentOf(app, '2000-01-01').components.schemas.UserEvent
  t.strictSame(Object.keys(old).sort(), Object.keys(documented.properties).sort(), 'the payload has the documented fields of 2000-01-01')
})
