/**
 * Random traffic of random histories (test/tools/replay-random-histories.test.ts): every version of a history of
 * ./random-histories.ts is sent random valid requests built from its own document (keys in random order, non-ASCII
 * keys and strings, 0, -0, 1e21, 2^53, empty strings and lists, header names in any case), with captureExchanges on
 * (sampleRate 1, with or without redaction and everyVersion), and webhooks are rendered for random subscriber
 * versions, by the test or (`handlersOnly`) by the handler; the NDJSON lines are what the README's subscriber writes.
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import { buildApp, gen as genValue, resolve, rng, pool, type History, type PoolItem } from './random-histories'
import { readTraffic, replayTraffic } from '../../tools'

type J = any
/** A value of `sch` with edge values: the traffic a replay must keep byte for byte. */
const gen = (doc: J, sch: J, r: () => number): unknown => genValue(doc, sch, r, 0, true)

export interface Recording { lines: string[], versions: string[], renderFor: string[] }
export interface Capture { everyVersion: boolean, redact: boolean, handlersOnly?: boolean, lenient?: boolean }

/** Serves random traffic of every version of history h with capture on; returns the NDJSON lines. */
export async function record (h: History, seed: number, cap: Capture, items: PoolItem[] = pool): Promise<Recording> {
  const r = rng(seed)
  const values = ['2000-01-01', ...h.versions.map((v) => v.value).filter((value) => value !== 'head')]
  const renderFor = values.filter(() => r() < 0.5)
  const captureExchanges = { sampleRate: 1, everyVersion: cap.everyVersion, ...(cap.redact ? { redact: { headers: ['x-trace', 'x-request-trace'], pointers: ['/note', '/memo', '/ship/street', '/lines/*/sku'] } } : {}) }
  const built = await buildApp(h, items, undefined, { captureExchanges, renderFor })
  const { app } = built
  await app.ready()
  const lines: string[] = []
  const write = (m: unknown): void => { lines.push(JSON.stringify(m)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', write)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', write)
  try {
    for (const version of values) {
      const hd: Record<string, string> = h.location === 'path' ? {} : { [r() < 0.5 ? 'x-api-version' : 'X-Api-Version']: version }
      const inject = async (options: { method?: 'POST', url: string, headers: Record<string, string>, payload?: object }) =>
        await app.inject(h.location === 'path' ? { ...options, url: `/${version}${options.url}` } : options)
      const doc = (await app.inject({ url: `/openapi.json?version=${version}` })).json()
      const ops: J = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path.replace(/^\/(\{[^}]+\}|\d{4}-\d{2}-\d{2})(?=\/)/, ''), item]))
      const postOp = ops['/orders'].post
      const reqSchema = postOp.requestBody.content['application/json'].schema
      for (let i = 0; i < 3; i++) {
        const body = gen(doc, reqSchema, r) as Record<string, unknown>
        body.id = `o${seed}_${version}_${i}`
        const res = await inject({ method: 'POST', url: '/orders', headers: hd, payload: body })
        if (res.statusCode !== 201 && cap.lenient !== true) throw new Error(`${version}: POST ${res.statusCode} ${res.body} ${JSON.stringify(body)}`)
        const head = built.store.get(body.id as string)
        const subs = values.filter(() => r() < 0.6).map((v, at) => ({ id: `s${at}`, version: v, secret: 'whsec_' + Buffer.alloc(24, 1).toString('base64') }))
        if (subs.length > 0 && cap.handlersOnly !== true) for (const name of ['order.created', 'order.updated']) await app.versioner.webhooks.render(name, head, { subscribers: subs })
        const getPath = Object.keys(ops).find((p) => p !== '/orders' && p !== '/addresses' && ops[p].get)!
        const getOp = ops[getPath].get
        const qp: Record<string, string> = {}
        const hdrs: Record<string, string> = { ...hd }
        for (const p of getOp.parameters ?? []) {
          if (p.in === 'query' && r() < 0.8) qp[p.name] = String(gen(doc, p.schema, r))
          if (p.in === 'header' && p.name !== 'x-api-version' && r() < 0.8) hdrs[r() < 0.5 ? p.name : p.name.toUpperCase()] = 't' + Math.floor(r() * 99)
        }
        const qs = new URLSearchParams(qp).toString()
        const url = getPath.replace('{id}', String(body.id)) + (qs === '' ? '' : '?' + qs)
        const g = await inject({ url, headers: hdrs })
        if (g.statusCode !== 200 && cap.lenient !== true) throw new Error(`${version}: GET ${url} ${g.statusCode} ${g.body}`)
        await inject({ url: getPath.replace('{id}', 'missing' + i), headers: hd })
      }
      const aOp = ops['/addresses'].post
      const a = gen(doc, aOp.requestBody.content['application/json'].schema, r)
      await inject({ method: 'POST', url: '/addresses', headers: hd, payload: a as object })
      const subs = values.filter(() => r() < 0.6).map((v, at) => ({ id: `s${at}`, version: v, secret: 'whsec_' + Buffer.alloc(24, 1).toString('base64') }))
      if (subs.length > 0 && cap.handlersOnly !== true) await app.versioner.webhooks.render('address.changed', built.seen.address, { subscribers: subs })
      const noteName = Object.keys(resolve(doc, reqSchema).properties).find((k) => k === 'note' || k === 'memo')
      const rejected = { ...(gen(doc, reqSchema, r) as object), id: `r${seed}`, [noteName as string]: 'reject' }
      await inject({ method: 'POST', url: '/orders', headers: hd, payload: rejected })
    }
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', write)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', write)
    await app.close()
  }
  return { lines, versions: values, renderFor }
}

const recordings = new Map<string, Promise<Recording>>()

/**
 * record's traffic of history h with the pool's own converters, made once per process for the same history, seed and
 * capture options: replay-random-histories' first test replays it cleanly, its twin test replays it against twins (4 of
 * their 6 histories alike); the lines are only read.
 */
export async function recordOnce (h: History, seed: number, cap: Capture): Promise<Recording> {
  const key = JSON.stringify([h, seed, cap])
  let recording = recordings.get(key)
  if (recording === undefined) recordings.set(key, recording = record(h, seed, cap))
  return await recording
}

export async function replayAgainst (h: History, text: string, opts: { handlers?: boolean, items?: PoolItem[], renderFor?: string[] } = {}) {
  const items = opts.items ?? pool
  const built = await buildApp(h, items)
  await built.app.ready()
  try {
    const traffic = readTraffic(text)
    const report = await replayTraffic(built.app, traffic, opts.handlers === true ? { handlers: async () => (await buildApp(h, items, undefined, { renderFor: opts.renderFor })).app } : {})
    return { traffic, report }
  } finally { await built.app.close() }
}
