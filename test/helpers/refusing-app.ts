// A small API whose old version refuses requests: its schema (a 400) and a request converter (a 422 for `first`
// without `last`), with switches for the mistakes a team makes (a converter that no longer refuses, an error handler
// renaming the validation code). Used by the refused exchanges' capture and replay tests (decision 0307).
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange,
  type FastifyVersionerOptions, type RequestInfo
} from '../../plugin'

const PersonInput = Type.Object({ name: Type.String({ minLength: 1 }), age: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false })
const Person = Type.Object({ id: Type.String(), name: Type.String() })

/** What a team got wrong. */
export interface RefusingMistakes {
  /** The converter lets `first` without `last` through (a half name). */
  readonly lets?: boolean
  /** An error handler answers validation errors with its own code. */
  readonly renamedCode?: boolean
}

/** Builds the application (not ready): `mistakes` off, it is correct. */
export async function refusingApp (mistakes: RefusingMistakes = {}, versioner: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  class NameWasSplit extends VersionChange {
    description = 'name was first and last.'
    instructionsToMigrateToPreviousVersion = [
      schema(PersonInput).field('name').didntExist,
      schema(PersonInput).formerField('first').existedAs({ type: Type.String({ minLength: 1 }) }),
      schema(PersonInput).formerField('last').existedAs({ type: Type.String(), optional: true })
    ]

    @ConvertRequestToNextVersionFor('/people', ['POST'])
    joinName (request: RequestInfo) {
      const { first, last, ...rest } = request.body as Record<string, unknown>
      if (last === undefined && mistakes.lets !== true) throw Object.assign(new Error('last is required with first'), { statusCode: 422, code: 'NAME_INCOMPLETE' })
      request.body = { ...rest, name: last === undefined ? String(first) : `${String(first)} ${String(last)}` }
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasSplit), new Version('2000-01-01'))
  const app = Fastify()
  if (mistakes.renamedCode === true) {
    app.setErrorHandler(async (error: Error & { statusCode?: number, code?: string }, _request, reply) => {
      const code = error.code === 'FST_ERR_VALIDATION' ? 'invalid_request' : error.code
      return await reply.code(error.statusCode ?? 500).send({ statusCode: error.statusCode ?? 500, code, error: 'Bad Request', message: error.message })
    })
  }
  await app.register(fastifyVersioner, { versions, ...versioner })
  let next = 0
  await app.register(versioned(async (api) => {
    api.post('/people', { schema: { body: PersonInput, response: { 201: Person } } }, async (request, reply) => {
      next++
      return await reply.code(201).send({ id: `p${next}`, name: request.body.name })
    })
  }))
  return app
}
