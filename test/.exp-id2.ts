import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned } from '../plugin'
import { bundleOf } from './helpers/http-apps'

async function main () {
  for (const id of ['X%41Y', 'a~b', 'a/b', 'a b', 'café', 'https://example.com/s/user.json', 'urn:x:y', "a'b", 'a*b']) {
    const Inner = Type.Object({ n: Type.Integer() }, { $id: id })
    const Outer = Type.Object({ inner: Inner }, { $id: 'Outer' })
    const app = Fastify()
    try {
      await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
      await app.register(versioned(async (api) => {
        api.get('/x', { schema: { response: { 200: Outer } } }, async () => ({ inner: { n: 1 } }))
        api.post('/y', { schema: { body: Outer } }, async () => ({ n: 1 }))
      }))
      await app.ready()
      const r = await app.inject({ method: 'POST', url: '/y', headers: { 'x-api-version': '2000-01-01' }, payload: { inner: { n: 1 } } })
      const doc = app.versioner.openapi('2001-01-01') as any
      console.log(JSON.stringify(id), r.statusCode, Object.keys(doc.components.schemas), JSON.stringify(doc.components.schemas.Outer))
    } catch (e) { console.log(JSON.stringify(id), 'start FAIL', (e as Error).message.slice(0, 300)) }
    await app.close()
  }
}
main()
