// The plugin as a Fastify user sees it: options, decorations, typed HEAD handlers inside versioned(...).
import Fastify, { type FastifyRequest } from 'fastify'
import { expectAssignable, expectError, expectType } from 'tsd'
import { Type, type TSchema } from '@sinclair/typebox'
import fastifyVersionerDefault, {
  currentDependencySolver, fastifyVersioner, fieldsTheVersionLacks, migrateResponseBody, versioned, Version, VersionBundle, VersionPicker,
  type DependencySolver, type FastifyVersionerOptions, type VersionedRouteInfo, type ServedEvent, type UpgradePreviewEvent,
  type JsonPatchOperation, type UpgradeGuide, renderWebhook, signWebhook, type WebhookDefinition,
  type RenderedWebhook, type WebhookSignatureHeaders, type CapturedExchange
} from '../..'

const versions = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))
const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) })
const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) })

const app = Fastify()

// Options: `versions` is required; the rest are typed.
expectAssignable<FastifyVersionerOptions>({ versions })
expectAssignable<FastifyVersionerOptions>({
  versions,
  apiVersionLocation: 'path',
  apiVersionFormat: 'string',
  apiVersionParameterName: 'api-version',
  apiVersionTitle: 'Version',
  apiVersionDescription: 'The API version'
})
expectAssignable<FastifyVersionerOptions>({ versions, apiVersionDefaultValue: async (request: FastifyRequest) => String(request.headers['x-account']) })
expectError(app.register(fastifyVersioner, {}))
expectError(app.register(fastifyVersioner, { versions, apiVersionLocation: 'query' }))
expectError(app.register(fastifyVersioner, { versions, apiVersionDefaultValue: 20000101 }))
expectAssignable<FastifyVersionerOptions>({ versions, clientId: (request: FastifyRequest) => request.id })
expectError(app.register(fastifyVersioner, { versions, clientId: 'acct_1' }))
declare const served: ServedEvent
expectType<readonly string[]>(served.changes)
expectType<string | undefined>(served.client)

// The upgrade preview: access is required and answers a boolean (or a promise of one); the event and guide are typed.
expectAssignable<FastifyVersionerOptions>({ versions, upgradePreview: { access: (request: FastifyRequest) => request.headers['x-staff'] === 'yes' } })
expectAssignable<FastifyVersionerOptions>({ versions, upgradePreview: { headerName: 'x-preview', access: async () => true } })
expectError(app.register(fastifyVersioner, { versions, upgradePreview: { headerName: 'x-preview' } }))
expectError(app.register(fastifyVersioner, { versions, upgradePreview: { access: () => 'yes' } }))
declare const previewEvent: UpgradePreviewEvent
expectType<string>(previewEvent.target)
expectType<readonly JsonPatchOperation[] | undefined>(previewEvent.patch)
expectType<boolean>(previewEvent.requestValid)
declare const guide: UpgradeGuide
expectType<string>(guide.changes[0].description)

// Captured exchanges: a sample rate and what to redact; the message is plain data.
expectAssignable<FastifyVersionerOptions>({ versions, captureExchanges: {} })
expectAssignable<FastifyVersionerOptions>({ versions, captureExchanges: { sampleRate: 0.01, redact: { headers: ['authorization'], pointers: ['/card/number'] } } })
expectError(app.register(fastifyVersioner, { versions, captureExchanges: { sampleRate: '1%' } }))
expectError(app.register(fastifyVersioner, { versions, captureExchanges: { redact: ['authorization'] } }))
declare const exchange: CapturedExchange
expectType<string>(exchange.version)
expectType<number>(exchange.clientResponse.status)
expectType<unknown>(exchange.handlerRequest.body)

// Docs options: Swagger UI settings, OAuth2, and hooks typed as Fastify's route hooks.
expectAssignable<FastifyVersionerOptions>({
  versions,
  uiConfig: { docExpansion: 'none', persistAuthorization: true },
  initOAuth: { clientId: 'docs', scopes: ['read'] },
  uiHooks: {
    onRequest: async (request, reply) => { if (request.headers.authorization === undefined) await reply.code(401).send() },
    preHandler: [async () => {}, (_request, _reply, done) => { done() }]
  }
})
expectError(app.register(fastifyVersioner, { versions, uiHooks: { onRequest: 'auth' } }))
expectError(app.register(fastifyVersioner, { versions, uiConfig: 'none' }))

class PinnedPicker extends VersionPicker {
  override async pick (request: FastifyRequest): Promise<string | undefined> {
    return this.requested(request) ?? '2000-01-01'
  }
}
app.register(fastifyVersioner, { versions, versionPicker: PinnedPicker })
app.register(fastifyVersionerDefault, { versions })

// Handlers inside versioned(...) are typed from their HEAD schemas (TypeBox type provider).
app.register(versioned(async (api) => {
  api.post('/users', { schema: { body: UserCreateRequest, response: { 200: UserResource } } }, async (request) => {
    expectType<string[]>(request.body.addresses)
    expectError(request.body.address)
    expectType<string | undefined>(request.apiVersion)
    expectType<DependencySolver>(currentDependencySolver(request))
    expectType<readonly string[]>(fieldsTheVersionLacks(request))
    return { id: 'u1', addresses: request.body.addresses }
  })
  api.get('/legacy', { onlyExistsInOlderVersions: true }, async () => ({ ok: true }))
  // The route option fullReplace: a boolean, or the HEAD body fields the handler keeps.
  api.put('/users/:id', { schema: { body: UserCreateRequest }, fullReplace: { keeps: ['/nickname', '/address/line2'] } }, async () => ({ ok: true }))
  api.put('/settings', { fullReplace: false }, async () => ({ ok: true }))
  api.post('/imports', { fullReplace: true }, async () => ({ ok: true }))
  const keeps = ['/nickname'] as const
  api.route({ method: 'PUT', url: '/profile', fullReplace: { keeps }, handler: async () => ({ ok: true }) })
  expectError(api.post('/users', { schema: { response: { 200: UserResource } } }, async () => ({ id: 1 })))
}), { prefix: '/api' })

// Decorations.
expectType<VersionBundle>(app.versioner.versions)
expectType<ReadonlyMap<string, readonly VersionedRouteInfo[]>>(app.versioner.routes)
expectType<TSchema>(app.versioner.schemas.get('2000-01-01').get(UserResource))
// migrateResponseBody: the body given must be HEAD's (frozen or not); the result is typed when the version's type is given.
expectType<{ id: string } | Promise<{ id: string }>>(
  app.versioner.migrateResponseBody<typeof UserResource, { id: string }>(UserResource, { latestBody: { id: 'u1', addresses: [] }, version: '2000-01-01' })
)
expectType<unknown>(migrateResponseBody(versions, UserResource, { latestBody: Object.freeze({ id: 'u1', addresses: Object.freeze(['a']) }), version: new Date('2000-06-01') }))
expectError(migrateResponseBody(versions, UserResource, { latestBody: {}, version: '2000-01-01' }))
expectError(migrateResponseBody(versions, UserResource, { latestBody: { id: 1, addresses: [] }, version: '2000-01-01' }))
expectError(app.versioner.migrateResponseBody(UserResource, { latestBody: { id: 'u1', address: 'a' }, version: '2000-01-01' }))
// Webhooks: renderWebhook's body is the definition's HEAD type; a subscriber's own fields come back with its delivery.
const userCreated: WebhookDefinition<typeof UserResource> = { name: 'user.created', body: UserResource }
const subscriber = { id: 'ep_1', url: 'https://example.com/hooks', version: '2000-01-01', secret: 'whsec_…' }
void renderWebhook(versions, userCreated, { id: 'u1', addresses: [] }, { subscribers: [subscriber] }).then(({ deliveries, skipped, failed }) => {
  expectType<string>(deliveries[0].subscriber.url)
  expectType<string>(failed[0].subscriber.url)
  expectType<Error>(failed[0].error)
  expectType<string>(deliveries[0].body)
  expectType<Readonly<Record<string, string>>>(deliveries[0].headers)
  expectType<string>(skipped[0].reason)
})
expectError(renderWebhook(versions, userCreated, { id: 1, addresses: [] }, { subscribers: [subscriber] }))
expectError(renderWebhook(versions, userCreated, { id: 'u1', addresses: [] }, { subscribers: [{ id: 'ep_1', version: '2000-01-01' }] }))
expectType<Promise<RenderedWebhook<typeof subscriber>>>(app.versioner.webhooks.render('user.created', {}, { subscribers: [subscriber], id: 'evt_1', timestamp: new Date() }))
// Given its definition rather than its name, webhooks.render() checks the body against the HEAD schema, as renderWebhook does.
expectType<Promise<RenderedWebhook<typeof subscriber>>>(app.versioner.webhooks.render(userCreated, { id: 'u1', addresses: [] }, { subscribers: [subscriber] }))
expectType<Promise<RenderedWebhook<typeof subscriber>>>(app.versioner.webhooks.render(userCreated, Object.freeze({ id: 'u1', addresses: Object.freeze(['a']) }), { subscribers: [subscriber] }))
expectError(app.versioner.webhooks.render(userCreated, { id: 1, addresses: [] }, { subscribers: [subscriber] }))
expectError(app.versioner.webhooks.render(userCreated, { id: 'u1', address: 'a' }, { subscribers: [subscriber] }))
expectType<WebhookSignatureHeaders>(signWebhook(['whsec_a', 'whsec_b'], { id: 'msg_1', body: '{}' }))
expectError(app.get('/x', { onlyExistsInOlderVersions: 'yes' }, async () => ({})))
// A webhook since removed is declared as a route is, with onlyExistsInOlderVersions.
app.versioner.webhooks.add({ name: 'user.created', body: UserResource, onlyExistsInOlderVersions: true })
expectError(app.versioner.webhooks.add({ name: 'user.created', body: UserResource, onlyExistsInOlderVersions: 'yes' }))
expectError(app.put('/x', { fullReplace: 'yes' }, async () => ({})))
expectError(app.put('/x', { fullReplace: { keeps: '/nickname' } }, async () => ({})))
expectError(fieldsTheVersionLacks({}))

// The tools are functions of the tools entry (test/types/tools.test-d.ts): app.versioner has no verify.
expectError(app.versioner.verify())
