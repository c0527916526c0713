import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import SwaggerParser from '@apidevtools/swagger-parser'
import { fastifyVersioner, versioned } from '../plugin'
import { bundleOf } from './helpers/http-apps'

async function main () {
  for (const id of ['X%41Y', 'a~b', 'a/b', 'a b', 'a#b', 'café', 'Plain']) {
    const Inner = Type.Object({ n: Type.Integer() }, { $id: id })
    const Outer = Type.Object({ inner: Type.Ref(Inner) , list: Type.Array(Inner)}, { $id: 'Outer' + id.length })
    const app = Fastify()
    app.addSchema(Inner)
    try {
      await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
      await app.register(versioned(async (api) => {
        api.get('/x', { schema: { response: { 200: Outer } } }, async () => ({ inner: { n: 1 }, list: [] }))
        api.post('/y', { schema: { body: Inner, response: { 200: Inner } } }, async () => ({ n: 1 }))
      }))
      await app.ready()
      const doc = app.versioner.openapi('2001-01-01') as any
      console.log(JSON.stringify(id), Object.keys(doc.components.schemas), JSON.stringify(doc.components.schemas[Object.keys(doc.components.schemas).find(k=>k.startsWith('Outer'))!]), JSON.stringify(doc.paths['/y'].post.requestBody))
      try { await SwaggerParser.dereference(structuredClone(doc)); console.log('  deref ok') } catch (e) { console.log('  deref FAIL', (e as Error).message.slice(0, 200)) }
      try { await SwaggerParser.validate(structuredClone(doc)); console.log('  validate ok') } catch (e) { console.log('  validate FAIL', (e as Error).message.slice(0, 300)) }
    } catch (e) { console.log(id, 'start FAIL', (e as Error).message.slice(0, 300)) }
    await app.close()
  }
}
main()
