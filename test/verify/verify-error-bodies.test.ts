// `verify` sends, for each versioned route and version whose request has a schema, one request that fails
// validation, through `app.inject`, and checks the 400 it answers against the 400 the version's document gives the
// operation (its own, or the plugin's generic one): an application error handler that writes another shape is a
// finding (decision 0215). A status other than 400 (an auth hook's 401) did not reach validation: no finding.
import { test } from 'tap'
import type { FastifyError, FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { verify, type VerifyFindings } from '../../tools'

const ProjectCreate = Type.Object({ name: Type.String({ minLength: 1 }), label: Type.Optional(Type.String()) }, { $id: 'ProjectCreate' })
const Project = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Project' })
const ApiError = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) }, { $id: 'ApiError' })

class LabelWasTag extends VersionChange {
  description = 'A project\'s label was its tag.'
  instructionsToMigrateToPreviousVersion = [schema(ProjectCreate).field('label').had({ name: 'tag' })]
}

interface Setup {
  /** The root app's error handler (none: Fastify's). */
  readonly errorHandler?: (error: FastifyError, request: unknown, reply: { code: (status: number) => { send: (body: unknown) => unknown } }) => unknown
  /** An `onRequest` hook answering 401 to every request. */
  readonly auth?: boolean
  /** The routes document their own 400 as `ApiError`. */
  readonly own400?: boolean
  /** The version in the path, under this prefix. */
  readonly pathUnder?: string
}

/** `POST /projects` (a body), `GET /projects` (no request schema), `GET /projects/:projectId` (an integer) in 2001-01-01 and 2000-01-01; `handled` counts the handler's runs. */
async function projectsApp (t: Parameters<typeof versionedApp>[0], setup: Setup): Promise<FastifyInstance & { handled: number }> {
  let handled = 0
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', LabelWasTag), new Version('2000-01-01')), async (api) => {
    const errors = setup.own400 === true ? { 400: ApiError } : {}
    api.post('/projects', { schema: { body: ProjectCreate, response: { 201: Project, ...errors } } }, async (request, reply) => {
      handled++
      return reply.code(201).send({ id: 'p1', name: request.body.name })
    })
    api.get('/projects', { schema: { response: { 200: Type.Array(Project) } } }, async () => [])
    api.get('/projects/:projectId', { schema: { params: Type.Object({ projectId: Type.Integer() }), response: { 200: Project, ...errors } } }, async () => {
      handled++
      return { id: 'p1', name: 'Ada' }
    })
  }, {
    ...(setup.pathUnder === undefined ? {} : { prefix: setup.pathUnder, versioner: { apiVersionLocation: 'path' as const } }),
    beforeRoutes: (app) => {
      app.addSchema(ApiError)
      if (setup.errorHandler !== undefined) app.setErrorHandler(setup.errorHandler as Parameters<FastifyInstance['setErrorHandler']>[0])
      if (setup.auth === true) app.addHook('onRequest', async (_request, reply) => reply.code(401).send({ message: 'Sign in first' }))
    }
  })
  await app.ready()
  return Object.defineProperty(app, 'handled', { get: () => handled }) as FastifyInstance & { handled: number }
}

/** The error body findings: route, versions and kind. */
function errorBodies (findings: VerifyFindings): string[] {
  return findings.filter((finding) => finding.kind === 'error body').map((finding) => `${finding.route} ${finding.versions.join(',')} ${finding.part}`)
}

const oneShape = (error: FastifyError, _request: unknown, reply: { code: (status: number) => { send: (body: unknown) => unknown } }): unknown =>
  reply.code(error.statusCode ?? 500).send({ error: { code: error.code ?? 'internal_error', message: error.message } })

test('an error handler giving every error one shape the documents do not promise is found, once per route, with every version', async (t) => {
  const app = await projectsApp(t, { errorHandler: oneShape })
  const findings = await verify(app, { examples: 1 })
  t.same(errorBodies(findings), ['POST /projects 2001-01-01,2000-01-01 response 400', 'GET /projects/:projectId 2001-01-01,2000-01-01 response 400'])
  const [finding, byParams] = findings.filter((found) => found.kind === 'error body')
  t.match(byParams.text, /\(GET \/projects\/x with the path parameter projectId x\) is answered 400 with \{"error":/)
  t.match(finding.text, /^POST \/projects \(2001-01-01; also 2000-01-01\): a request that fails validation \(POST \/projects with the body \{\}: the required field 'name' left out\) is answered 400 with \{"error":\{"code":"FST_ERR_VALIDATION",/)
  t.match(finding.text, /which the 400 response of its document refuses: must have required property 'statusCode'/)
  t.match(finding.fix, /document the error shape the application sends, in each version .*, or make its error handler send what the documents say/)
  t.match(finding.fix, /a version change/)
  t.same(finding.value, { error: { code: 'FST_ERR_VALIDATION', message: "body must have required property 'name'" } })
  t.match(finding.example, { method: 'POST', url: '/projects', payload: {} })
  t.equal(app.handled, 0, 'the handler never ran: validation refused the request first')
})

test('an error handler sending what the documents say, or the shape the routes document as their own 400, is no finding', async (t) => {
  const fastifys = await projectsApp(t, { errorHandler: (error, _request, reply) => reply.code(error.statusCode ?? 500).send(error) })
  t.same(errorBodies(await verify(fastifys, { examples: 1 })), [], 'Fastify\'s body, as the plugin\'s generic 400 documents it')
  const documented = await projectsApp(t, { errorHandler: oneShape, own400: true })
  t.same(errorBodies(await verify(documented, { examples: 1 })), [], 'the route documents its own 400 with the shape sent')
  const plain = await projectsApp(t, {})
  t.same(errorBodies(await verify(plain, { examples: 1 })), [], 'no error handler at all')
})

test('an error handler answering validation with its own code, under the plugin\'s 400 that says FST_ERR_VALIDATION, is found; a route\'s own 400 is judged by its schema alone', async (t) => {
  const ownCode = (error: FastifyError, _request: unknown, reply: { code: (status: number) => { send: (body: unknown) => unknown } }): unknown =>
    reply.code(error.statusCode ?? 500).send({ statusCode: error.statusCode ?? 500, code: error.validation === undefined ? error.code : 'invalid_request', error: 'Bad Request', message: error.message })
  const app = await projectsApp(t, { errorHandler: ownCode })
  const findings = (await verify(app, { examples: 1 })).filter((found) => found.kind === 'error body')
  t.same(findings.map((finding) => `${finding.route} ${finding.versions.join(',')} ${finding.part}`), ['POST /projects 2001-01-01,2000-01-01 response 400', 'GET /projects/:projectId 2001-01-01,2000-01-01 response 400'])
  t.match(findings[0].text, /is answered 400 with \{"statusCode":400,"code":"invalid_request",.*which the 400 response of its document refuses: its code is "invalid_request", where that response says a request invalid for this version answers FST_ERR_VALIDATION/)
  const noCode = await projectsApp(t, { errorHandler: (error, _request, reply) => reply.code(error.statusCode ?? 500).send({ statusCode: error.statusCode, error: 'Bad Request', message: error.message }) })
  t.match((await verify(noCode, { examples: 1 })).find((found) => found.kind === 'error body')?.message, /its code is absent/)
  const documented = await projectsApp(t, { errorHandler: ownCode, own400: true })
  t.same(errorBodies(await verify(documented, { examples: 1 })), [], 'a route\'s own 400 names no code: its schema alone judges the body')
})

test('an answer other than 400 (an auth hook\'s 401) did not reach validation: no finding, whatever its body', async (t) => {
  const app = await projectsApp(t, { errorHandler: oneShape, auth: true })
  t.same(errorBodies(await verify(app, { examples: 1 })), [])
})

test('with the version in the path, under a prefix, the request goes to the version\'s URL and the document\'s operation is found', async (t) => {
  const app = await projectsApp(t, { errorHandler: oneShape, pathUnder: '/api' })
  const findings = (await verify(app, { examples: 1 })).filter((finding) => finding.kind === 'error body')
  t.same(findings.map((finding) => `${finding.route} ${finding.versions.join(',')}`), ['POST /api/projects 2001-01-01,2000-01-01', 'GET /api/projects/:projectId 2001-01-01,2000-01-01'])
  t.match(findings[0].text, /\(POST \/api\/2001-01-01\/projects with the body \{\}/)
  const documented = await projectsApp(t, { errorHandler: oneShape, own400: true, pathUnder: '/api' })
  t.same(errorBodies(await verify(documented, { examples: 1 })), [])
})

test('the invalid request is made from the version\'s own schema: a required query parameter or header left out, a number sent as x', async (t) => {
  // No instruction: these routes hold no ProjectCreate (FST_VERSIONER_INSTRUCTION_UNUSED).
  class NothingChanged extends VersionChange {
    description = 'Nothing these routes take changed.'
    instructionsToMigrateToPreviousVersion = []
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', NothingChanged), new Version('2000-01-01')), async (api) => {
    api.get('/search', { schema: { querystring: Type.Object({ q: Type.String() }) } }, async () => [])
    api.get('/pages', { schema: { querystring: Type.Object({ page: Type.Optional(Type.Integer()) }) } }, async () => [])
    api.delete('/projects/:projectId', { schema: { params: Type.Object({ projectId: Type.Integer() }), headers: Type.Object({ 'if-match': Type.String() }) } }, async () => ({}))
    api.get('/free/:name', { schema: { params: Type.Object({ name: Type.String() }) } }, async () => ({}))
  }, { beforeRoutes: (app) => app.setErrorHandler(oneShape as Parameters<FastifyInstance['setErrorHandler']>[0]) })
  await app.ready()
  const findings = (await verify(app, { examples: 1 })).filter((finding) => finding.kind === 'error body')
  t.same(findings.map((finding) => /fails validation \((.*?)\) is answered 400/.exec(finding.text)?.[1]), [
    "GET /search without the required query parameter 'q'",
    'GET /pages?page=x with page=x in the query string',
    "DELETE /projects/1 without the required header 'if-match'"
  ], 'a free string parameter makes no invalid request: GET /free/:name is not sent')
})

test('a route with attachValidation (its handler runs on an invalid request) is sent no invalid request; its neighbours are', async (t) => {
  let ran = 0
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', LabelWasTag), new Version('2000-01-01')), async (api) => {
    api.post('/projects', { attachValidation: true, schema: { body: ProjectCreate, response: { 201: Project } } }, async (_request, reply) => {
      ran++
      return reply.code(201).send({ id: 'p1', name: 'Ada' })
    })
    api.get('/projects/:projectId', { schema: { params: Type.Object({ projectId: Type.Integer() }), response: { 200: Project } } }, async () => ({ id: 'p1', name: 'Ada' }))
  }, { beforeRoutes: (app) => { app.setErrorHandler(oneShape as Parameters<FastifyInstance['setErrorHandler']>[0]) } })
  await app.ready()
  const findings = await verify(app, { examples: 1 })
  t.same(errorBodies(findings), ['GET /projects/:projectId 2001-01-01,2000-01-01 response 400'])
  const invalidSent = findings.some((finding) => finding.route === 'POST /projects' && finding.kind === 'error body')
  t.notOk(invalidSent, 'no error body finding on the attachValidation route')
  // verify's other checks never run handlers; the error body check ran none here either.
  t.equal(ran, 0, 'the handler of the attachValidation route never ran')
})

test('regression: an error converter failing on the 400 of validation, answering an old client 500, is found', async (t) => {
  // Before: a 500 did not reach validation's answer, and was none: every invalid request of 2000-01-01 answered 500,
  // and verify was green (the route documents no 400 of its own, so no replayed example reached the converter).
  const Created = Type.Object({ name: Type.String(), label: Type.String() }, { $id: 'Created' })
  const makeChange = (careful: boolean): VersionChangeClass => {
    class LabelWasTitle extends VersionChange {
      description = 'A project\'s label was its title.'
      instructionsToMigrateToPreviousVersion = [schema(Created).field('label').had({ name: 'title' })]

      @ConvertRequestToNextVersionFor(Created)
      up (request: RequestInfo) {
        request.body.label = request.body.title
        delete request.body.title
      }

      @ConvertResponseToPreviousVersionFor('/projects', ['POST'], { migrateHttpErrors: true })
      down (response: ResponseInfo) {
        if (response.statusCode >= 400) {
          // Written for the app's own error shape, `{ errors: [{ field }] }`; validation's 400 has none.
          const errors = careful ? response.body.errors as Array<{ field: string }> | undefined ?? [] : response.body.errors as Array<{ field: string }>
          response.body.fields = errors.map((error) => error.field === 'label' ? 'title' : error.field)
          return
        }
        response.body.title = response.body.label
        delete response.body.label
      }
    }
    return LabelWasTitle
  }
  for (const careful of [false, true]) {
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', makeChange(careful)), new Version('2000-01-01')), async (api) => {
      api.post('/projects', { schema: { body: Created, response: { 201: Created } } }, async (request, reply) => await reply.code(201).send(request.body))
    })
    await app.ready()
    const answer = await app.inject({ method: 'POST', url: '/projects', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'a' } })
    t.equal(answer.statusCode, careful ? 400 : 500, 'what an old client sending an invalid request reads')
    const findings = (await verify(app, { examples: 5 })).filter((finding) => finding.kind === 'error body')
    if (careful) {
      t.same(findings, [], 'a converter taking the error shape of validation too: no finding')
      continue
    }
    t.same(findings.map(({ route, versions, part }) => `${route} ${versions.join(',')} ${part}`), ['POST /projects 2000-01-01 response 500'])
    t.match(findings[0].text, /^POST \/projects \(2000-01-01\): a request that fails validation \(POST \/projects with the body \{\}: the required field 'name' left out\) is answered 500 with .*FST_VERSIONER_CONVERTER_FAILED.*: a converter on the way to the version failed on the error the request is refused with\. A client of this version is answered 500 for its own mistake/)
  }
})
