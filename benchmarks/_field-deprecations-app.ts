/**
 * One process of `benchmarks/field-deprecations.ts` (a helper: `benchmarks/run.js` skips files whose name starts
 * with `_`): `node --expose-gc --import tsx benchmarks/_field-deprecations-app.ts <configuration>`. Builds the
 * configuration's application, warms it up, prints `ready`, then answers `cpu <n>` lines on stdin with
 * `cpu <µs per request>` over `<n>` requests sent with `app.inject()`; any other line ends it. Configurations, all
 * `POST /orders` in the newest of 3 versions (two of the same HEAD route with converters for the older ones):
 * - `without`: a body schema with no deprecated field;
 * - `unused`: the same schema with one more optional field `legacy` marked `deprecated: true`, not sent;
 * - `used`: the same, the request sending `legacy` (the response gets `Deprecation` and `Link`).
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { loadPlugin } from './_plugin'
import { answerCpuWindows } from './_windows'

const FIELD_DEPRECATION_CONFIGURATIONS = ['without', 'unused', 'used'] as const
type Configuration = (typeof FIELD_DEPRECATION_CONFIGURATIONS)[number]

const VERSIONS = ['2020-01-03', '2020-01-02', '2020-01-01'] as const

function orderSchema (deprecatedField: boolean): TSchema {
  return Type.Object({
    name: Type.String({ maxLength: 100 }),
    quantity: Type.Integer({ minimum: 1 }),
    address: Type.Object({ street: Type.String(), city: Type.String() }),
    items: Type.Array(Type.Object({ sku: Type.String(), count: Type.Integer() }), { maxItems: 20 }),
    note: Type.Optional(Type.String()),
    ...(deprecatedField ? { legacy: Type.Optional(Type.String({ deprecated: true })) } : {})
  })
}

/** The application of a configuration (not listening). */
async function buildApp (configuration: Configuration): Promise<FastifyInstance> {
  const { fastifyVersioner, versioned, schema, Version, VersionBundle, VersionChange } = loadPlugin()
  const Order = orderSchema(configuration !== 'without')
  class NoteAdded extends VersionChange {
    description = 'The note field was added.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('note').didntExist]
  }
  class QuantityMinimum extends VersionChange {
    description = 'quantity has a minimum.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('quantity').didntHave('minimum')]
  }
  const app = Fastify({ logger: false })
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new Version(VERSIONS[0], NoteAdded), new Version(VERSIONS[1], QuantityMinimum), new Version(VERSIONS[2]))
  })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: Order } }, async (request) => ({ ok: typeof request.body === 'object' }))
  }))
  return app
}

function bodyOf (configuration: Configuration): string {
  const body: Record<string, unknown> = {
    name: 'Ada', quantity: 2, address: { street: '1 Main St', city: 'London' }, items: [{ sku: 'a', count: 1 }, { sku: 'b', count: 3 }], note: 'n'
  }
  if (configuration === 'used') body.legacy = 'old'
  return JSON.stringify(body)
}

async function main (): Promise<void> {
  const configuration = process.argv[2] as Configuration
  if (!FIELD_DEPRECATION_CONFIGURATIONS.includes(configuration)) throw new Error(`usage: _field-deprecations-app.ts ${FIELD_DEPRECATION_CONFIGURATIONS.join('|')}`)
  const app = await buildApp(configuration)
  await app.ready()
  const options = {
    method: 'POST' as const, url: '/orders', payload: bodyOf(configuration), headers: { 'content-type': 'application/json', 'x-api-version': VERSIONS[0] }
  }
  const send = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      const deprecated = response.headers.deprecation !== undefined
      if (response.statusCode !== 200 || deprecated !== (configuration === 'used')) {
        throw new Error(`${configuration}: got ${response.statusCode}, Deprecation ${String(response.headers.deprecation)}`)
      }
    }
  }
  await send(2000)
  await answerCpuWindows(send)
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
