/**
 * An application of every kind the documents must handle: two versioned APIs (`/a` with named date versions and an
 * unversioned QUERY route, `/b` with string versions), each with a GET and a QUERY route. Readied; closed at the
 * test's end. Used by the document validation test and the browser test.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned } from '../../plugin'
import { bundleOf } from './http-apps'

/** The documents of {@link everyKindOfApp}: each API's prefix and the versions it serves documents for. */
export const EVERY_KIND_OF_DOCUMENT: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/a', ['2025-06-01.dahlia', '2025-01-01', '2024-06-01.basil', 'unversioned']],
  ['/b', ['v2', 'v1']]
]

const SearchBody = Type.Object({ term: Type.String() }, { $id: 'SearchBody' })
const SearchResult = Type.Object({ hits: Type.Array(Type.String()) }, { $id: 'SearchResult' })

/** The HEAD routes of each API: a GET, and a QUERY with a body and a response schema. */
const routes = versioned(async (api) => {
  api.get('/items', { schema: { response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: '1' }))
  api.route({
    method: 'QUERY',
    url: '/search',
    schema: { summary: 'Search the items', body: SearchBody, response: { 200: SearchResult } },
    handler: async (request) => ({ hits: [(request.body as { term: string }).term] })
  })
})

/** Two APIs: `/a` with named date versions (and an unversioned QUERY route), `/b` with string versions. */
export async function everyKindOfApp (t: { teardown: (fn: () => unknown) => void }): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  const info = (title: string) => ({ info: { title, version: 'x', description: `The ${title}.`, contact: { name: 'Team', url: 'https://example.com' } }, servers: [{ url: 'https://api.example.com' }] })
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOf(['2025-06-01.dahlia', '2025-01-01', '2024-06-01.basil']), openapi: info('API A') })
    await api.register(routes)
    api.route({ method: 'QUERY', url: '/lookup', schema: { summary: 'Look up', body: SearchBody }, handler: async () => ({ found: true }) })
  }, { prefix: '/a' })
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string', openapi: info('API B') })
    await api.register(routes)
  }, { prefix: '/b' })
  await app.ready()
  return app
}
