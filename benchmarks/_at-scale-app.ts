/**
 * One measurement of an API with a long history, in a fresh process (a helper, started by `benchmarks/at-scale.ts`):
 * `node --expose-gc --import tsx benchmarks/_at-scale-app.ts <versions> <copies>`. The application is
 * test/helpers/many-releases.ts at release `versions`, with `copies` more pairs of routes on its schemas. Prints one
 * JSON line of times (ms), sizes (bytes) and RSS (MB).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { manyReleasesApp, releaseDate } from '../test/helpers/many-releases'

const gc = (globalThis as { gc?: () => void }).gc
const rssMb = (): number => { gc?.(); return process.memoryUsage().rss / 1024 / 1024 }

async function timed<T> (work: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now()
  const result = await work()
  return [performance.now() - start, result]
}

type Json = Record<string, unknown>

/** A value of the schema named `name` in a version's document (its required fields filled). */
function valueOf (schema: Json, components: Record<string, Json>): unknown {
  if (typeof schema.$ref === 'string') return valueOf(components[schema.$ref.split('/').pop() as string], components)
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (schema.type === 'string') return schema.pattern === undefined ? 's' : '1'
  if (schema.type === 'integer' || schema.type === 'number') return 1
  if (schema.type === 'array') return ['a']
  const properties = (schema.properties ?? {}) as Record<string, Json>
  return Object.fromEntries(Object.entries(properties).map(([key, each]) => [key, valueOf(each, components)]))
}

/** A body of `name` in `version`, from its document. */
async function bodyOf (app: FastifyInstance, version: string, name: string): Promise<Json> {
  const document = (await app.inject(`/openapi.json?version=${version}`)).json()
  return valueOf({ $ref: name }, document.components.schemas) as Json
}

/** µs a request of each version: the least of 7 windows of `count` requests, the versions' windows interleaved. */
async function perRequest (app: FastifyInstance, versions: readonly string[], count: number): Promise<number[]> {
  const sends = await Promise.all(versions.map(async (version) => await sender(app, version)))
  const best = versions.map(() => Infinity)
  for (let window = 0; window < 7; window++) {
    for (const [index, send] of sends.entries()) {
      const [ms] = await timed(async () => { for (let i = 0; i < count; i++) await send() })
      best[index] = Math.min(best[index], ms * 1000 / count)
    }
  }
  return best
}

/** A function sending one create request of `version` (after a first, checked, to warm the version's route). */
async function sender (app: FastifyInstance, version: string): Promise<() => Promise<unknown>> {
  const payload = await bodyOf(app, version, 'CreateCustomer')
  const send = async (): Promise<unknown> => await app.inject({ method: 'POST', url: '/accounts/0/customers', headers: { 'x-api-version': version }, payload })
  const first = await app.inject({ method: 'POST', url: '/accounts/0/customers', headers: { 'x-api-version': version }, payload })
  if (first.statusCode >= 300) throw new Error(`${version}: ${first.statusCode} ${first.body}`)
  return send
}

async function main (): Promise<void> {
  const [versions, copies] = process.argv.slice(2).map(Number)
  const closes: Array<() => unknown> = []
  const [buildMs, app] = await timed(async () => await manyReleasesApp({ teardown: (close) => { closes.push(close) } }, versions, undefined, copies))
  const [readyMs] = await timed(async () => { await app.ready() })
  const rssReady = rssMb()
  const [oldest, newest] = [releaseDate(1), releaseDate(versions)]
  const get = async (url: string): Promise<[number, number, number]> => {
    const [ms, response] = await timed(async () => await app.inject(url))
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`)
    return [ms, response.body.length, response.statusCode]
  }
  const [docFirst, docBytes] = await get(`/openapi.json?version=${oldest}`)
  const [docLater] = await get(`/openapi.json?version=${oldest}`)
  const [fingerprintMs] = await timed(async () => app.versioner.fingerprint)
  const [changelogMs, changelogBytes] = await get('/changelog')
  const rssAfterDoc = rssMb()
  const [pageMs, pageBytes] = await get(`/docs?version=${oldest}`)
  const [upgradeFirst, upgradeBytes] = await get(`/docs/upgrade?from=${oldest}&to=${newest}`)
  const [upgradeLater] = await get(`/docs/upgrade?from=${oldest}&to=${newest}`)
  const [upgradeSecond] = await get(`/docs/upgrade?from=${releaseDate(2)}&to=${newest}`)
  const [upgradeJsonMs, upgradeJsonBytes] = await get(`/docs/upgrade?from=${oldest}&to=${newest}&format=json`)
  const rssAfterGuide = rssMb()
  const [newestUs, middleUs, oldestUs] = await perRequest(app, [newest, releaseDate(Math.ceil(versions / 2)), oldest], 200)
  const subscribers = Array.from({ length: 48 }, (_, k) => ({ id: `s${k}`, version: releaseDate(1 + Math.floor(k * versions / 48)), secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }))
  const customer = await bodyOf(app, newest, 'Customer')
  const [webhookMs] = await timed(async () => await app.versioner.webhooks.render('customer.created', customer, { subscribers }))
  const [webhookLater] = await timed(async () => await app.versioner.webhooks.render('customer.created', customer, { subscribers }))
  const Customer = app.versioner.webhooks.list()[0].body
  const [migrateFirst] = await timed(async () => await app.versioner.migrateResponseBody(Customer, { latestBody: customer, version: oldest }))
  const [migrateLater] = await timed(async () => { for (let i = 0; i < 100; i++) await app.versioner.migrateResponseBody(Customer, { latestBody: customer, version: oldest }) })
  const rssEnd = rssMb()
  console.log(JSON.stringify({
    versions,
    routes: app.versioner.routes.get(newest)?.length,
    buildMs,
    readyMs,
    rssReady,
    docFirst,
    docLater,
    docBytes,
    fingerprintMs,
    changelogMs,
    changelogBytes,
    rssAfterDoc,
    pageMs,
    pageBytes,
    upgradeFirst,
    upgradeLater,
    upgradeSecond,
    upgradeBytes,
    upgradeJsonMs,
    upgradeJsonBytes,
    rssAfterGuide,
    newestUs,
    middleUs,
    oldestUs,
    webhookMs,
    webhookLater,
    migrateFirst,
    migrateLaterUs: migrateLater * 10,
    rssEnd
  }))
  for (const close of closes) await close()
}

main().catch((error: unknown) => { console.error(error); process.exit(1) })
