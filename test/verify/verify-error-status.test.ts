// `verify`'s invalid requests (decision 0215) also find validation errors answered 422 where every version's document
// says 400 (decision 0174): a 422 whose body names what the request got wrong (the field left out, the parameter
// refused, Fastify's validation code) reached validation. Hooks answering before validation (auth's 401/403, a rate
// limiter's 429, a not-found handler's 404, a 415, a business rule's 422 naming nothing verify refused) are none.
import { test } from 'tap'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import fastifyAuth from '@fastify/auth'
import fastifyRateLimit from '@fastify/rate-limit'
import { schema, Version, VersionBundle, VersionChange } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { verify, type VerifyFindings } from '../../tools'

const ProjectCreate = Type.Object({ name: Type.String({ minLength: 1 }), label: Type.Optional(Type.String()) }, { $id: 'ProjectCreate' })
const Project = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Project' })
const Problem = Type.Object({ statusCode: Type.Literal(422), code: Type.String(), error: Type.String(), message: Type.String() }, { $id: 'Problem' })

class LabelWasTag extends VersionChange {
  description = 'A project\'s label was its tag.'
  instructionsToMigrateToPreviousVersion = [schema(ProjectCreate).field('label').had({ name: 'tag' })]
}

type ErrorHandler = Parameters<FastifyInstance['setErrorHandler']>[0]

/** Validation errors answered 422 with Fastify's body, as RFC 9110's Unprocessable Content; other errors as Fastify does. */
const unprocessable = (async (error: FastifyError, _request: unknown, reply: FastifyReply) => {
  if (error.validation === undefined) throw error
  return await reply.code(422).send({ statusCode: 422, code: error.code, error: 'Unprocessable Content', message: error.message })
}) as ErrorHandler

interface Setup {
  /** The root app's error handler (none: Fastify's). */
  readonly errorHandler?: ErrorHandler
  /** Hooks, plugins or handlers of the root app, registered before the versioner. */
  readonly before?: (app: FastifyInstance) => Promise<void> | void
  /** The routes document their own 422 as `Problem`. */
  readonly own422?: boolean
  /** The version in the path, under this prefix. */
  readonly pathUnder?: string
}

/**
 * `POST /projects` (a body), `GET /projects/:projectId` (an integer), `GET /search` (a required query parameter) and
 * `GET /me` (a required `authorization` header) in 2001-01-01 and 2000-01-01; `handled` counts the handlers' runs.
 */
async function projectsApp (t: Parameters<typeof versionedApp>[0], setup: Setup): Promise<FastifyInstance & { handled: number }> {
  let handled = 0
  const errors = setup.own422 === true ? { 422: Problem } : {}
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', LabelWasTag), new Version('2000-01-01')), async (api) => {
    api.post('/projects', { schema: { body: ProjectCreate, response: { 201: Project, ...errors } } }, async (request, reply) => {
      handled++
      return reply.code(201).send({ id: 'p1', name: request.body.name })
    })
    api.get('/projects/:projectId', { schema: { params: Type.Object({ projectId: Type.Integer() }), response: { 200: Project, ...errors } } }, async () => {
      handled++
      return { id: 'p1', name: 'Ada' }
    })
    api.get('/search', { schema: { querystring: Type.Object({ q: Type.String() }), response: { 200: Type.Array(Project), ...errors } } }, async () => {
      handled++
      return []
    })
    api.get('/me', { schema: { headers: Type.Object({ authorization: Type.String() }), response: { 200: Project, ...errors } } }, async () => {
      handled++
      return { id: 'p1', name: 'Ada' }
    })
  }, {
    ...(setup.pathUnder === undefined ? {} : { prefix: setup.pathUnder, versioner: { apiVersionLocation: 'path' as const } }),
    beforeVersioner: async (app) => {
      if (setup.errorHandler !== undefined) app.setErrorHandler(setup.errorHandler)
      await setup.before?.(app)
    },
    beforeRoutes: (app) => { app.addSchema(Problem) }
  })
  await app.ready()
  return Object.defineProperty(app, 'handled', { get: () => handled }) as FastifyInstance & { handled: number }
}

/** The error body findings: route, versions and part. */
function errorAnswers (findings: VerifyFindings): string[] {
  return findings.filter((finding) => finding.kind === 'error body').map((finding) => `${finding.route} ${finding.versions.join(',')} ${finding.part}`)
}

const EVERY_ROUTE = ['POST /projects', 'GET /projects/:projectId', 'GET /search', 'GET /me'].map((route) => `${route} 2001-01-01,2000-01-01 response 422`)

test('validation errors answered 422 where every version\'s document says 400 are found, once per route, with every version', async (t) => {
  const app = await projectsApp(t, { errorHandler: unprocessable })
  const findings = await verify(app, { examples: 1 })
  t.same(errorAnswers(findings), EVERY_ROUTE)
  const [finding] = findings.filter((found) => found.kind === 'error body')
  t.match(finding.text, /^POST \/projects \(2001-01-01; also 2000-01-01\): a request that fails validation \(POST \/projects with the body \{\}: the required field 'name' left out\) is answered 422 with \{"statusCode":422,"code":"FST_ERR_VALIDATION",/)
  t.match(finding.text, /a status its document does not give the operation \(its responses: 201, 400, 404\)/)
  t.match(finding.fix, /one that checks for 400 breaks: keep answering 400 to requests that fail validation, or document 422 in each version's responses/)
  t.match(finding.fix, /make it a version change \(a response converter with migrateHttpErrors giving older versions their 400\)/)
  t.same(finding.value, { statusCode: 422, code: 'FST_ERR_VALIDATION', error: 'Unprocessable Content', message: "body must have required property 'name'" })
  t.match(finding.example, { method: 'POST', url: '/projects', payload: {} })
  t.equal(app.handled, 0, 'no handler ran: validation refused every request first')
})

test('a 422 of a shape of its own naming what was refused (Ajv\'s issues) is found, under path versions too', async (t) => {
  const issues = (async (error: FastifyError, _request: unknown, reply: FastifyReply) => {
    if (error.validation === undefined) throw error
    return await reply.code(422).send({ errors: error.validation.map((issue) => ({ at: issue.instancePath, ...issue.params })) })
  }) as ErrorHandler
  t.same(errorAnswers(await verify(await projectsApp(t, { errorHandler: issues }), { examples: 1 })), EVERY_ROUTE)
  const underPath = await verify(await projectsApp(t, { errorHandler: unprocessable, pathUnder: '/api' }), { examples: 1 })
  t.same(errorAnswers(underPath), EVERY_ROUTE.map((route) => route.replace(' /', ' /api/')))
  t.match(underPath.find((finding) => finding.route === 'GET /api/projects/:projectId')?.text, /\(GET \/api\/2001-01-01\/projects\/x with the path parameter projectId x\) is answered 422/)
})

test('a 422 the documents give is no status finding: its body is checked against the documented one', async (t) => {
  t.same(errorAnswers(await verify(await projectsApp(t, { errorHandler: unprocessable, own422: true }), { examples: 1 })), [], 'the shape documented')
  const otherShape = (async (error: FastifyError, _request: unknown, reply: FastifyReply) => {
    if (error.validation === undefined) throw error
    // Sent as text, which Fastify does not serialize with the documented schema.
    return await reply.code(422).type('application/json').send(JSON.stringify({ statusCode: 422, code: error.code, message: error.message }))
  }) as ErrorHandler
  const findings = await verify(await projectsApp(t, { errorHandler: otherShape, own422: true }), { examples: 1 })
  t.same(errorAnswers(findings), EVERY_ROUTE)
  t.match(findings.find((finding) => finding.kind === 'error body')?.text, /is answered 422 with .*, which the 422 response of its document refuses: must have required property 'error'\. Clients of this version read the 400/)
})

/** An app answering before validation, with validation errors answered 422 (unseen: validation is never reached). */
const beforeValidation: Record<string, Setup['before']> = {
  'an onRequest auth hook answering 401 without a body': (app) => {
    app.addHook('onRequest', async (_request, reply) => reply.code(401).header('www-authenticate', 'Bearer').send())
  },
  'an onRequest auth hook answering 401 naming the header left out': (app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.headers.authorization === undefined) return await reply.code(401).send({ message: "the header 'authorization' is required", fields: ['authorization'] })
    })
  },
  'a preParsing hook answering 403 naming the fields it checked': (app) => {
    app.addHook('preParsing', async (_request, reply) => reply.code(403).send({ message: 'Forbidden', fields: ['name', 'q', 'projectId', 'authorization', 'object'] }))
  },
  'a preValidation auth hook answering 401 (a malformed JSON body would get 400 before it)': (app) => {
    app.addHook('preValidation', async (_request, reply) => reply.code(401).send({ statusCode: 401, code: 'FST_UNAUTHORIZED', error: 'Unauthorized', message: 'Sign in first' }))
  },
  'a preValidation business rule answering 422 naming nothing verify refused': (app) => {
    app.addHook('preValidation', async (_request, reply) => reply.code(422).send({ statusCode: 422, code: 'ACCOUNT_CLOSED', error: 'Unprocessable Content', message: 'This account is closed.' }))
  },
  'a rate limiter answering 429': async (app) => {
    await app.register(fastifyRateLimit, { max: 0, timeWindow: 60_000 })
  },
  'a not-found handler answering 404 for every request': (app) => {
    app.setNotFoundHandler(async (request, reply) => reply.code(404).send({ message: `Route ${request.method}:${request.url} not found` }))
    app.addHook('onRequest', async (_request, reply) => { reply.callNotFound() })
  },
  'a content type of its own answered 415 to JSON': (app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'POST') return await reply.code(415).send({ message: `Unsupported Media Type: ${request.headers['content-type']}; send application/vnd.api+json with the field name` })
    })
    app.addHook('preValidation', async (_request, reply) => reply.code(401).send())
  },
  '@fastify/auth in onRequest answering 401': async (app) => {
    await app.register(fastifyAuth)
    app.after(() => {
      const signedIn = async (): Promise<void> => { throw Object.assign(new Error('Sign in first'), { statusCode: 401 }) }
      app.addHook('onRequest', app.auth([signedIn]))
    })
  }
}

for (const [name, before] of Object.entries(beforeValidation)) {
  test(`${name}: the request never reached validation, no finding`, async (t) => {
    const app = await projectsApp(t, { errorHandler: unprocessable, before })
    t.same(errorAnswers(await verify(app, { examples: 1 })), [])
    t.equal(app.handled, 0)
  })
}
