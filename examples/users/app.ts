/**
 * The users API: HEAD routes written once, served in every version.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { fastifyVersioner, versioned, type FastifyVersionerOptions } from '../../plugin'
import { NotFound, UserAddressResourceList, UserCreateRequest, UserParams, UserResource, type User } from './schemas'
import { versions } from './versions'

/** Options of the example application. */
export interface BuildAppOptions {
  fastify?: FastifyServerOptions
  versioner?: Partial<FastifyVersionerOptions>
}

/** Builds the users API (not listening). */
export async function buildApp (options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(options.fastify)
  const users = new Map<string, User>()
  // The title every page and document shows (the docs page's heading, the upgrade guide's, `info.title`).
  await app.register(fastifyVersioner, { versions, openapi: { info: { title: 'Users API' } }, ...options.versioner })

  await app.register(versioned(async (api) => {
    api.post('/users', {
      schema: { summary: 'Create a user', tags: ['users'], body: UserCreateRequest, response: { 200: UserResource } }
    }, async (request) => {
      const values = request.body.addressesToCreate ?? [request.body.defaultAddress]
      const user: User = { id: randomUUID(), addresses: values.map((value) => ({ id: randomUUID(), value })) }
      users.set(user.id, user)
      return { id: user.id, prefetchedAddresses: user.addresses.map((address) => address.value) }
    })

    api.get('/users/:userId', {
      schema: { summary: 'Get a user', tags: ['users'], params: UserParams, response: { 200: UserResource, 404: NotFound } }
    }, async (request, reply) => {
      const user = users.get(request.params.userId)
      if (user === undefined) return reply.code(404).send({ message: 'No such user' })
      return { id: user.id, prefetchedAddresses: user.addresses.map((address) => address.value) }
    })

    api.get('/users/:userId/addresses', {
      schema: { summary: "List a user's addresses", tags: ['addresses'], params: UserParams, response: { 200: UserAddressResourceList, 404: NotFound } }
    }, async (request, reply) => {
      const user = users.get(request.params.userId)
      if (user === undefined) return reply.code(404).send({ message: 'No such user' })
      return { data: user.addresses }
    })
  }))

  app.get('/health', async () => ({ ok: true }))
  return app
}

// The command-line tools load the app from its default export: `fastify-versioner check examples/users/app.ts --against examples/users/openapi`.
export default buildApp
