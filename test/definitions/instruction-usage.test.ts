import { test, type Test } from 'tap'
import Fastify from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, InstructionDoesNotApplyToAnythingError, InvalidGenerationInstructionError, ResponseInfo, Version, VersionBundle,
  VersionChange, enumeration, extendSchema, fastifyVersioner, migrateResponseBody, schema, versioned, type Instruction
} from '../../plugin'
import { versionedApp, type AppOptions } from '../helpers/apps'
import { rejection } from '../helpers/errors'
import { v } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User', title: 'User' })
const renamed = schema(User).field('fullName').had({ name: 'name' })

function bundleOf (...instructions: Instruction[]): VersionBundle {
  return new VersionBundle(new Version('2001-01-01', changeClass('RenameName', instructions)), new Version('2000-01-01'))
}

/** Asserts that `app.ready()` fails with FST_VERSIONER_INSTRUCTION_UNUSED naming the instruction, change, version, schema and `hint`. */
async function refused (t: Test, routes: FastifyPluginAsyncTypebox | undefined, hint: RegExp, instructions: Instruction[] = [renamed], options: AppOptions = {}): Promise<void> {
  const app = await versionedApp(t, bundleOf(...instructions), routes, options)
  const error = await rejection(async () => await app.ready())
  t.ok(error instanceof InstructionDoesNotApplyToAnythingError, 'an InstructionDoesNotApplyToAnythingError')
  t.ok(error instanceof InvalidGenerationInstructionError, 'an InvalidGenerationInstructionError too')
  t.equal(error?.code, 'FST_VERSIONER_INSTRUCTION_UNUSED')
  t.match(error?.message, /in version change 'RenameName' \(version '2001-01-01'\): no route registered inside versioned\(\.\.\.\) and no webhook uses/)
  t.match(error?.message, hint)
}

const answer = async () => ({ id: 'u1', fullName: 'Ada' })

test('a route registered outside versioned(...) is named: its old clients would get HEAD\'s shape', async (t) => {
  // regression: ready() passed and GET /users answered 2000-01-01 clients { fullName } (HEAD's) instead of { name }.
  await refused(t, undefined, /The route GET \/users uses User, but it is registered outside versioned\(\.\.\.\)/, [renamed], {
    beforeRoutes: (app) => { app.get('/users', { schema: { response: { 200: User } } }, answer) }
  })
  // A POST after a GET at the same path is no HEAD twin of it.
  await refused(t, undefined, /The route POST \/users uses User, but it is registered outside/, [renamed], {
    beforeRoutes: (app) => {
      app.get('/users', { schema: { response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => ({ count: 0 }))
      app.post('/users', { schema: { body: User } }, answer)
    }
  })
  // As a $ref to the shared schema, in a sibling plugin.
  await refused(t, undefined, /The route GET \/users uses User, but it is registered outside/, [renamed], {
    beforeRoutes: (app) => {
      app.register(async (sibling) => {
        sibling.addSchema(User)
        sibling.get('/users', { schema: { response: { 200: Type.Ref(User) } } }, answer)
      }).after(() => {})
    }
  })
})

test('a route using an inline copy of the schema is named', async (t) => {
  const written = Type.Object({ id: Type.String(), fullName: Type.String() })
  await refused(t, async (api) => { api.get('/users', { schema: { response: { 200: written } } }, answer) },
    /The route GET \/users uses an inline copy of User \(a schema holding all its fields\)/)
  const composite = Type.Composite([Type.Object({ ...User.properties }), Type.Object({ email: Type.String() })])
  await refused(t, async (api) => { api.get('/users', { schema: { response: { 200: Type.Array(composite) } } }, async () => []) },
    /The route GET \/users uses an inline copy of User .*extendSchema\(User, \{ … \}\)/)
  const spread = Type.Object({ ...User.properties, email: Type.String() })
  await refused(t, async (api) => { api.post('/users', { schema: { body: spread } }, answer) }, /The route POST \/users uses an inline copy of User/)
  // An enum written again.
  const Status = Type.Union([Type.Literal('active'), Type.Literal('gone')], { $id: 'Status' })
  await refused(t, async (api) => { api.get('/status', { schema: { response: { 200: Type.Union([Type.Literal('active'), Type.Literal('gone')]) } } }, async () => 'active' as const) },
    /The route GET \/status uses an inline copy of Status \(a schema equal to it\): .* use Status itself there\./, [enumeration(Status).didntHave('gone')])
})

test('a schema renamed in HEAD while the instruction names the former constant is named by its title', async (t) => {
  const Customer = Type.Object({ id: Type.String(), displayName: Type.String() }, { $id: 'Customer', title: 'User' })
  await refused(t, async (api) => { api.get('/customers', { schema: { response: { 200: Customer } } }, async () => ({ id: 'c1', displayName: 'Ada' })) },
    /The route GET \/customers uses another schema titled 'User': name that schema in the instruction/)
})

test('a schema used only by migrateResponseBody is refused, with the ways out: app.addSchema, a webhook, a converter', async (t) => {
  const Export = Type.Object({ id: Type.String(), fullName: Type.String(), email: Type.String() }, { $id: 'UserExport' })
  const dropped = schema(Export).field('email').didntExist
  const health: FastifyPluginAsyncTypebox = async (api) => { api.get('/health', async () => ({ ok: true })) }
  await refused(t, health, /If UserExport is sent only outside routes \(a job calling migrateResponseBody\), give it to app\.addSchema, declare the webhook that sends it \(app\.versioner\.webhooks\.add\) or name it in a converter declared \{ checkUsage: false \}; otherwise remove the instruction\./, [dropped])
  // A shared schema counts, and the job's bodies keep taking the instruction's shape.
  const shared = await versionedApp(t, bundleOf(dropped), health, { beforeVersioner: (app) => { app.addSchema(Export) } })
  await shared.ready()
  t.same(await migrateResponseBody(shared.versioner.versions, Export, { latestBody: { id: 'e1', fullName: 'Ada', email: 'a@b.c' }, version: '2000-01-01' }), { id: 'e1', fullName: 'Ada' })
  // A webhook's body counts.
  const hooked = await versionedApp(t, bundleOf(dropped), undefined, {
    beforeRoutes: (app) => { app.versioner.webhooks.add({ name: 'user.exported', body: Export }) }
  })
  await hooked.ready()
  // A by-schema converter declared { checkUsage: false } says the schema is used outside routes.
  class RenameExport extends VersionChange {
    description = 'The export renamed name to fullName.'
    instructionsToMigrateToPreviousVersion = [schema(Export).field('fullName').had({ name: 'name' })]
    @ConvertResponseToPreviousVersionFor(Export, { checkUsage: false })
    static rename (response: ResponseInfo): void {
      const body = response.body as Record<string, unknown>
      body.name = body.fullName
      delete body.fullName
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', RenameExport), new Version('2000-01-01')) })
  await app.register(versioned(health))
  await app.ready()
  t.same(await migrateResponseBody(app.versioner.versions, Export, { latestBody: { id: 'e1', fullName: 'Ada', email: 'a@b.c' }, version: '2000-01-01' }), { id: 'e1', name: 'Ada', email: 'a@b.c' })
  // A schema the declared one holds counts too (a shared or a converter's schema holding Address).
  const Address = Type.Object({ street: Type.String(), zip: Type.String() }, { $id: 'ExportAddress' })
  const Shipment = Type.Object({ id: Type.String(), address: Address }, { $id: 'Shipment' })
  const noZip = schema(Address).field('zip').didntExist
  await refused(t, health, /If ExportAddress is sent only outside routes/, [noZip])
  const holder = await versionedApp(t, bundleOf(noZip), health, { beforeVersioner: (instance) => { instance.addSchema(Shipment) } })
  await holder.ready()
  class ShipmentChange extends VersionChange {
    description = 'Shipment addresses gained zip.'
    instructionsToMigrateToPreviousVersion = [noZip]
    @ConvertResponseToPreviousVersionFor(Shipment, { checkUsage: false })
    static keep (_response: ResponseInfo): void {}
  }
  const converted = Fastify()
  t.teardown(() => converted.close())
  await converted.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', ShipmentChange), new Version('2000-01-01')) })
  await converted.register(versioned(health))
  await converted.ready()
  t.same(await migrateResponseBody(converted.versioner.versions, Shipment, { latestBody: { id: 's1', address: { street: 'Main', zip: '1' } }, version: '2000-01-01' }),
    { id: 's1', address: { street: 'Main' } })
})

test('a shared schema a route outside versioned(...) uses is no way out: that route is named', async (t) => {
  await refused(t, async (api) => { api.get('/health', async () => ({ ok: true })) }, /The route GET \/users uses User, but it is registered outside versioned/, [renamed], {
    beforeVersioner: (app) => { app.addSchema(User) },
    beforeRoutes: (app) => { app.get('/users', { schema: { response: { 200: Type.Ref(User) } } }, answer) }
  })
})

test('every way a route holds the schema counts as a use', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const Parent = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'Person' })
  const Child = extendSchema(Parent, { email: Type.String() }, { $id: 'Employee' })
  const Status = Type.Union([Type.Literal('active'), Type.Literal('gone')], { $id: 'Status' })
  const Tree: TSchema = Type.Recursive((This) => Type.Object({ label: Type.String(), address: Type.Optional(Address), children: Type.Array(This) }), { $id: 'Tree' })
  const instructions = [
    schema(Address).field('street').had({ name: 'line1' }),
    schema(Parent).field('fullName').had({ name: 'name' }),
    enumeration(Status).didntHave('gone')
  ]
  const app = await versionedApp(t, bundleOf(...instructions), async (api) => {
    api.get('/employees', { schema: { querystring: Type.Object({ status: Type.Optional(Status) }), response: { 200: Type.Array(Child) } } }, async () => [])
    api.get('/tree', { schema: { response: { 200: Tree } } }, async () => ({ label: 'root', children: [] }))
  })
  await app.ready()
  t.equal((await app.inject({ method: 'GET', url: '/employees', headers: v('2000-01-01') })).statusCode, 200)
  // Brought back by an older instruction's type only.
  const Former = Type.Object({ street: Type.String() }, { $id: 'FormerAddress' })
  const older = new VersionBundle(
    new Version('2002-01-01', changeClass('RenameStreet', [schema(Former).field('street').had({ name: 'line1' })])),
    new Version('2001-01-01', changeClass('AddressWasThere', [schema(User).formerField('address').existedAs({ type: Former })])),
    new Version('2000-01-01'))
  const restored = await versionedApp(t, older, async (api) => { api.get('/users', { schema: { response: { 200: User } } }, answer) })
  await restored.ready()
  t.pass('a schema an older field brings back is a use')
})

test('partialApp skips the check', async (t) => {
  const partial = await versionedApp(t, bundleOf(renamed), async (api) => { api.get('/health', async () => ({ ok: true })) }, { versioner: { partialApp: true } })
  await partial.ready()
  t.pass('a partial app starts')
})
