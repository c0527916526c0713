// A request converter of a new version reading a name an older change renamed (decision 0320): converters run in
// order, each on the request as the older versions' converters left it, so a converter reading `x-tenant` after the
// change that made it `tenant-id` never sees a client's tenant, whatever the version of the client. Every value still
// arrives where it was (HEAD keeps the header), and every request is valid: only the names the converter reads tell.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { verify } from '../../tools'
import { summary } from '../helpers/verify-apps'

const TenantHeaders = Type.Object({ 'tenant-id': Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { $id: 'TenantHeaders' })
const ProjectCreate = Type.Object({
  name: Type.String({ minLength: 1 }),
  tenantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  note: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String())
}, { $id: 'ProjectCreate' })

class TenantHeaderLostItsPrefix extends VersionChange {
  description = 'The tenant header is tenant-id (it was x-tenant).'
  instructionsToMigrateToPreviousVersion = [schema(TenantHeaders).field('tenant-id').had({ name: 'x-tenant' })]

  @ConvertRequestToNextVersionFor('/projects', ['POST'])
  renameHeader (request: RequestInfo) {
    if (request.headers['x-tenant'] !== undefined) request.headers['tenant-id'] = request.headers['x-tenant']
    delete request.headers['x-tenant']
  }
}

class NoteWasMemo extends VersionChange {
  description = 'A project\'s note is note (it was memo).'
  instructionsToMigrateToPreviousVersion = [schema(ProjectCreate).field('note').had({ name: 'memo' })]

  @ConvertRequestToNextVersionFor(ProjectCreate)
  renameNote (request: RequestInfo) {
    if (request.body.memo !== undefined) request.body.note = request.body.memo
    delete request.body.memo
  }
}

/**
 * An app of three versions: 2001-01-01 renamed the tenant header and the note, 2002-01-01 moved the tenant into the
 * body (`tenantId`) and added a summary, its request converter written by `moveTenant`; HEAD still takes the header.
 */
async function appOf (t: Teardown, moveTenant: (request: RequestInfo) => void): Promise<FastifyInstance> {
  class TenantInTheBody extends VersionChange {
    description = 'A project\'s tenant is in its body (tenantId), and it has a summary.'
    instructionsToMigrateToPreviousVersion = [schema(ProjectCreate).field('tenantId').didntExist, schema(ProjectCreate).field('summary').didntExist]

    @ConvertRequestToNextVersionFor('/projects', ['POST'])
    tenantToBody (request: RequestInfo) { moveTenant(request) }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2002-01-01', TenantInTheBody), new Version('2001-01-01', TenantHeaderLostItsPrefix, NoteWasMemo), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.post('/projects', { schema: { headers: TenantHeaders, body: ProjectCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
  })
  await app.ready()
  return app
}

test('a request converter reading a header by the name an older change renamed is found: no client\'s value reaches it', async (t) => {
  const app = await appOf(t, (request) => {
    const tenant = request.headers['x-tenant'] // the oldest documents' name: 2001-01-01's change has renamed it
    if (tenant !== undefined) request.body.tenantId = tenant
  })
  const findings = await verify(app, { examples: 5 })
  t.same(summary(findings), [
    'POST /projects 2001-01-01 request lost headers/x-tenant after TenantInTheBody (2002-01-01) by TenantInTheBody.tenantToBody'
  ])
  t.same(findings[0].versions, ['2001-01-01', '2000-01-01'])
  t.match(findings[0].text, /request headers\/x-tenant: read by TenantInTheBody\.tenantToBody where no request has it: TenantHeaderLostItsPrefix \(2001-01-01\) renamed or removed it/)
  t.match(findings[0].fix, /^Make TenantInTheBody\.tenantToBody read the name the request has where it runs \(the one TenantHeaderLostItsPrefix gave it\)/)
})

test('a body field read by its name before an older rename is found the same way', async (t) => {
  const app = await appOf(t, (request) => {
    request.body.tenantId = request.headers['tenant-id']
    if (request.body.memo !== undefined) request.body.summary = String(request.body.memo).slice(0, 40) // memo: note since 2001-01-01
  })
  t.same(summary(await verify(app, { examples: 5 })), [
    'POST /projects 2001-01-01 request lost body/memo after TenantInTheBody (2002-01-01) by TenantInTheBody.tenantToBody'
  ])
})

test('a converter reading the names its version has, both names as a fallback, or a name only newer versions have, is no finding', async (t) => {
  const right = await appOf(t, (request) => {
    if (request.headers['tenant-id'] !== undefined) request.body.tenantId = request.headers['tenant-id']
    if (request.body.note !== undefined) request.body.summary = String(request.body.note).slice(0, 40)
  })
  t.same(summary(await verify(right, { examples: 5 })), [])
  const fallback = await appOf(t, (request) => {
    const tenant = request.headers['x-tenant'] ?? request.headers['tenant-id']
    if (tenant !== undefined) request.body.tenantId = tenant
  })
  t.same(summary(await verify(fallback, { examples: 5 })), [])
  // A default for a field the change adds reads a name the version lacks, that no older version had.
  const defaulted = await appOf(t, (request) => {
    if (request.body.tenantId === undefined && request.headers['tenant-id'] !== undefined) request.body.tenantId = request.headers['tenant-id']
    if (!('summary' in (request.body as object))) request.body.summary = ''
  })
  t.same(summary(await verify(defaulted, { examples: 5 })), [])
  // A converter copying the request's parts as it was handed them (structuredClone refuses an object that notes reads).
  const copied = await appOf(t, (request) => {
    const [body, headers] = [structuredClone(request.body), structuredClone(request.headers)]
    if (headers['tenant-id'] !== undefined) body.tenantId = headers['tenant-id']
    request.body = body
  })
  t.same(summary(await verify(copied, { examples: 5 })), [])
})

test('a converter that fails is told as it fails, whether or not its reads are noted', async (t) => {
  const app = await appOf(t, (request) => {
    structuredClone(request.body)
    if (request.headers['tenant-id'] !== undefined) throw new Error('tenants are looked up elsewhere')
  })
  const findings = await verify(app, { examples: 5 })
  t.same(summary(findings).map((line) => line.replace(/ by .*/, '')), ['POST /projects 2001-01-01 request converter failed converter after TenantInTheBody (2002-01-01)'])
  t.match(findings[0].message, /tenants are looked up elsewhere/)
})
