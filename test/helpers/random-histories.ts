/**
 * Random version-change histories (test/migration/random-histories.test.ts): a pool of lossless version changes over
 * one orders API, dealt at random to one to three versions and listed in random order within each, so that several
 * changes of one version touch one schema in different ways (a holder renamed and what it holds converted; a nested
 * schema's field renamed and its holder retyped). The API has unions with a `type` literal (a member added later), a
 * nullable field, a record, arrays of arrays, a schema that is a request body and nested in a response, a query string
 * and a header schema converted by path on a route whose path moves, by-path and by-schema converters in one change,
 * a 404 and a 422 body converted with `migrateHttpErrors` (by schema, and by path naming a field), a HeadVersion hiding
 * a field, three webhooks (one added by a change), and versions named in the header or (a fifth of the histories)
 * in the path. Every converter is lossless, so what a client of any version sends, the echo handler returns
 * unchanged, and every webhook renders the same body: no simulator of the changes is needed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual, inspect } from 'node:util'
import { Type, type Static } from '@sinclair/typebox'
import Fastify from 'fastify'
import Ajv from 'ajv'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, endpoint,
  fastifyVersioner, schema, versioned, type CaptureExchangesOptions, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { checkDocuments, exportDocuments, verify } from '../../tools'

/** The HEAD schemas, new objects for each application. */
export function headSchemas () {
  const Item = Type.Object({ sku: Type.String(), qty: Type.Integer({ minimum: 0, maximum: 999999999 }) })
  const Card = Type.Object({ type: Type.Literal('card'), number: Type.String(), brand: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String() }, { $id: 'Bank' })
  const Wallet = Type.Object({ type: Type.Literal('wallet'), wid: Type.String() }, { $id: 'Wallet' })
  const Address = Type.Object({ street: Type.String({ pattern: '^[a-z0-9]*$' }), zip: Type.String({ pattern: '^[a-z0-9]*$' }) })
  const Order = Type.Object({
    id: Type.String(),
    lines: Type.Array(Item),
    note: Type.Union([Type.Null(), Type.String()]),
    tags: Type.Record(Type.String(), Type.Integer()),
    grid: Type.Array(Type.Array(Type.Integer())),
    pay: Type.Union([Card, Bank, Wallet]),
    boxes: Type.Array(Type.Array(Item)),
    stock: Type.Record(Type.String(), Item),
    ship: Address,
    billing: Type.Union([Type.Null(), Address]),
    priority: Type.Integer(),
    internal: Type.Optional(Type.String())
  }, { $id: 'Order' })
  const Query = Type.Object({ limit: Type.Optional(Type.Integer()), q: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })) })
  const Headers = Type.Object({ 'x-trace': Type.Optional(Type.String()) })
  const NotFound = Type.Object({ code: Type.String(), message: Type.String() }, { $id: 'NotFound' })
  const Problem = Type.Object({ code: Type.String(), field: Type.String() }, { $id: 'Problem' })
  return { Problem, Wallet, Item, Card, Bank, Address, Order, Query, Headers, NotFound }
}
export type Schemas = ReturnType<typeof headSchemas>

/** What the shapes are where a change is: names of renamed fields so far (newest first walk). */
export interface Shape { street: string, zip: string, getPath: string, number: string, brand: boolean }
function ren (body: Record<string, unknown>, from: string, to: string): void {
  if (!(from in body)) return
  const v = body[from]; delete body[from]; body[to] = v
}
export interface PoolItem { key: string, conflicts?: string[], make: (s: Schemas, shape: Shape, ctx: { getPathHere: string }) => VersionChangeClass, after?: (shape: Shape) => void }

/** The changes a history is made of; `make` is given the shapes the changes before it left. */
export const pool: PoolItem[] = [
  {
    key: 'ItemSkuCode',
    make: (s) => {
      class ItemSkuCode extends VersionChange {
        description = 'sku was code'
        instructionsToMigrateToPreviousVersion = [schema(s.Item).field('sku').had({ name: 'code' })]
        @ConvertRequestToNextVersionFor(s.Item) up (r: RequestInfo) { ren(r.body, 'code', 'sku') }
        @ConvertResponseToPreviousVersionFor(s.Item) down (r: ResponseInfo) { ren(r.body, 'sku', 'code') }
      }; return ItemSkuCode
    }
  },
  {
    key: 'ItemQtyDigits',
    make: (s) => {
      class ItemQtyDigits extends VersionChange {
        description = 'qty was digits'
        // Digits without a leading zero: Number() and String() lose none ('007' would come back '7').
        instructionsToMigrateToPreviousVersion = [schema(s.Item).field('qty').had({ type: Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$' }) })]
        @ConvertRequestToNextVersionFor(s.Item) up (r: RequestInfo) { r.body.qty = Number(r.body.qty) }
        @ConvertResponseToPreviousVersionFor(s.Item) down (r: ResponseInfo) { r.body.qty = String(r.body.qty) }
      }; return ItemQtyDigits
    }
  },
  {
    key: 'LinesItems',
    make: (s) => {
      class LinesItems extends VersionChange {
        description = 'lines was items'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('lines').had({ name: 'items' })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'items', 'lines') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'lines', 'items') }
      }; return LinesItems
    }
  },
  {
    key: 'CardNum',
    make: (s) => {
      class CardNum extends VersionChange {
        description = 'number was num'
        instructionsToMigrateToPreviousVersion = [schema(s.Card).field('number').had({ name: 'num' })]
        @ConvertRequestToNextVersionFor(s.Card) up (r: RequestInfo) { ren(r.body, 'num', 'number') }
        @ConvertResponseToPreviousVersionFor(s.Card) down (r: ResponseInfo) { ren(r.body, 'number', 'num') }
      }; return CardNum
    },
    after: (shape) => { shape.number = 'num' }
  },
  {
    key: 'NoteMemo',
    make: (s) => {
      class NoteMemo extends VersionChange {
        description = 'note was memo'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('note').had({ name: 'memo' })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'memo', 'note') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'note', 'memo') }
        @ConvertResponseToPreviousVersionFor('/orders', ['POST'], { migrateHttpErrors: true }) problem (r: ResponseInfo) { if (r.statusCode === 422 && r.body.field === 'note') r.body.field = 'memo' }
      }; return NoteMemo
    }
  },
  {
    key: 'TagsLabels',
    make: (s) => {
      class TagsLabels extends VersionChange {
        description = 'tags was labels'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('tags').had({ name: 'labels' })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'labels', 'tags') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'tags', 'labels') }
      }; return TagsLabels
    }
  },
  {
    key: 'GridMatrix',
    make: (s) => {
      class GridMatrix extends VersionChange {
        description = 'grid was matrix'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('grid').had({ name: 'matrix' })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'matrix', 'grid') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'grid', 'matrix') }
      }; return GridMatrix
    }
  },
  {
    key: 'ShipTo',
    conflicts: ['ShipString'],
    make: (s) => {
      class ShipTo extends VersionChange {
        description = 'ship was shipTo'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('ship').had({ name: 'shipTo' })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'shipTo', 'ship') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'ship', 'shipTo') }
      }; return ShipTo
    }
  },
  {
    key: 'ShipString',
    conflicts: ['ShipTo'],
    make: (s, shape) => {
      const { street, zip } = shape
      class ShipString extends VersionChange {
        description = 'ship was a string'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('ship').had({ type: Type.String({ pattern: '^[a-z0-9]*\\|[a-z0-9]*$' }) })]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { const [a, b] = String(r.body.ship).split('|'); r.body.ship = { [street]: a, [zip]: b } }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { r.body.ship = `${r.body.ship[street]}|${r.body.ship[zip]}` }
      }; return ShipString
    }
  },
  {
    key: 'StreetLine1',
    make: (s) => {
      class StreetLine1 extends VersionChange {
        description = 'street was line1'
        instructionsToMigrateToPreviousVersion = [schema(s.Address).field('street').had({ name: 'line1' })]
        @ConvertRequestToNextVersionFor(s.Address) up (r: RequestInfo) { ren(r.body, 'line1', 'street') }
        @ConvertResponseToPreviousVersionFor(s.Address) down (r: ResponseInfo) { ren(r.body, 'street', 'line1') }
      }; return StreetLine1
    },
    after: (shape) => { shape.street = 'line1' }
  },
  {
    key: 'ZipPostal',
    make: (s) => {
      class ZipPostal extends VersionChange {
        description = 'zip was postal'
        instructionsToMigrateToPreviousVersion = [schema(s.Address).field('zip').had({ name: 'postal' })]
        @ConvertRequestToNextVersionFor(s.Address) up (r: RequestInfo) { ren(r.body, 'postal', 'zip') }
        @ConvertResponseToPreviousVersionFor(s.Address) down (r: ResponseInfo) { ren(r.body, 'zip', 'postal') }
      }; return ZipPostal
    },
    after: (shape) => { shape.zip = 'postal' }
  },
  {
    key: 'PriorityNew',
    make: (s) => {
      class PriorityNew extends VersionChange {
        description = 'priority is new'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('priority').didntExist]
        @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { r.body.priority = 0 }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { delete r.body.priority }
      }; return PriorityNew
    }
  },
  {
    key: 'PathMove',
    make: (_s, shape) => {
      const from = shape.getPath
      class PathMove extends VersionChange {
        description = 'GET one was at /purchases/:id'
        instructionsToMigrateToPreviousVersion = [endpoint(from, ['GET']).had({ path: from === '/orders/:id' ? '/purchases/:id' : '/orders/:id' })]
      }; return PathMove
    },
    after: (shape) => { shape.getPath = shape.getPath === '/orders/:id' ? '/purchases/:id' : '/orders/:id' }
  },
  {
    key: 'LimitMax',
    make: (s, _shape, ctx) => {
      class LimitMax extends VersionChange {
        description = 'limit was max'
        instructionsToMigrateToPreviousVersion = [schema(s.Query).field('limit').had({ name: 'max' })]
        @ConvertRequestToNextVersionFor(ctx.getPathHere, ['GET']) up (r: RequestInfo) { ren(r.queryParams, 'max', 'limit') }
      }; return LimitMax
    }
  },
  {
    key: 'QDigits',
    make: (s, _shape, ctx) => {
      class QDigits extends VersionChange {
        description = 'q was an integer'
        instructionsToMigrateToPreviousVersion = [schema(s.Query).field('q').had({ type: Type.Integer({ minimum: 0, maximum: 999999 }) })]
        @ConvertRequestToNextVersionFor(ctx.getPathHere, ['GET']) up (r: RequestInfo) { if (r.queryParams.q !== undefined) r.queryParams.q = String(r.queryParams.q) }
      }; return QDigits
    }
  },
  {
    key: 'TraceHeader',
    make: (s, _shape, ctx) => {
      class TraceHeader extends VersionChange {
        description = 'x-trace was x-request-trace'
        instructionsToMigrateToPreviousVersion = [schema(s.Headers).field('x-trace').had({ name: 'x-request-trace' })]
        @ConvertRequestToNextVersionFor(ctx.getPathHere, ['GET']) up (r: RequestInfo) { ren(r.headers, 'x-request-trace', 'x-trace') }
      }; return TraceHeader
    }
  },
  {
    key: 'NotFoundType',
    make: (s) => {
      class NotFoundType extends VersionChange {
        description = 'code was type'
        instructionsToMigrateToPreviousVersion = [schema(s.NotFound).field('code').had({ name: 'type' })]
        @ConvertResponseToPreviousVersionFor(s.NotFound, { migrateHttpErrors: true }) down (r: ResponseInfo) { ren(r.body, 'code', 'type') }
      }; return NotFoundType
    }
  },
  {
    key: 'ProblemKind',
    make: (s) => {
      class ProblemKind extends VersionChange {
        description = 'code was kind'
        instructionsToMigrateToPreviousVersion = [schema(s.Problem).field('code').had({ name: 'kind' })]
        @ConvertResponseToPreviousVersionFor(s.Problem, { migrateHttpErrors: true }) down (r: ResponseInfo) { ren(r.body, 'code', 'kind') }
      }; return ProblemKind
    }
  },
  {
    key: 'InternalHidden',
    make: (s) => {
      class InternalHidden extends VersionChange {
        description = 'internal is not public'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('internal').didntExist]
      }; return InternalHidden
    }
  },
  {
    key: 'CardBrandNew',
    make: (s) => {
      class CardBrandNew extends VersionChange {
        description = 'cards have a brand'
        instructionsToMigrateToPreviousVersion = [schema(s.Card).field('brand').didntExist]
        @ConvertRequestToNextVersionFor(s.Card) up (r: RequestInfo) { r.body.brand = 'unknown' }
        @ConvertResponseToPreviousVersionFor(s.Card) down (r: ResponseInfo) { delete r.body.brand }
      }; return CardBrandNew
    },
    after: (shape) => { shape.brand = false }
  },
  {
    key: 'BankTag',
    make: (s) => {
      class BankTag extends VersionChange {
        description = 'bank was bank_account'
        instructionsToMigrateToPreviousVersion = [schema(s.Bank).field('type').had({ type: Type.Literal('bank_account') })]
        @ConvertRequestToNextVersionFor(s.Bank) up (r: RequestInfo) { r.body.type = 'bank' }
        @ConvertResponseToPreviousVersionFor(s.Bank) down (r: ResponseInfo) { r.body.type = 'bank_account' }
      }; return BankTag
    }
  },
  {
    key: 'UpdatedNew',
    make: () => {
      class UpdatedNew extends VersionChange {
        description = 'the webhook order.updated is new'
        instructionsToMigrateToPreviousVersion = [endpoint('order.updated', ['POST']).didntExist]
      }; return UpdatedNew
    }
  },
  {
    key: 'WalletNew',
    conflicts: ['PayBy'],
    make: (s, shape) => {
      const { number, brand } = shape; class WalletNew extends VersionChange {
        description = 'wallets are new'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('pay').had({ type: Type.Union([s.Card, s.Bank]) })]
        @ConvertResponseToPreviousVersionFor(s.Wallet) down (r: ResponseInfo) { r.body.type = 'card'; r.body[number] = r.body.wid; delete r.body.wid; if (brand) r.body.brand = 'wallet' }
      }; return WalletNew
    }
  },
  {
    key: 'PayBy',
    conflicts: ['WalletNew'],
    make: (s) => {
      class PayBy extends VersionChange {
        description = 'by path: pay was payment on POST /orders'
        instructionsToMigrateToPreviousVersion = [schema(s.Order).field('pay').had({ name: 'payment' })]
        @ConvertRequestToNextVersionFor('/orders', ['POST']) up (r: RequestInfo) { ren(r.body, 'payment', 'pay') }
        @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'pay', 'payment') }
      }; return PayBy
    }
  }
]

const SECRET = 'whsec_' + Buffer.alloc(24, 1).toString('base64')

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function rng (seed: number) { let a = seed >>> 0; return () => { a = (a + 0x6D2B79F5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 } }
const VERSIONS = ['2003-01-01', '2002-01-01', '2001-01-01']

/**
 * Versions, newest first, each with the keys of its changes in the pool, as listed; `preview` makes a version a preview
 * (`channel: 'preview'`) that requests with `x-beta: yes` may use (list previews first, valued e.g. `2003-01-01.preview`).
 */
export interface History { versions: Array<{ value: string, changes: string[], preview?: boolean }>, location?: 'path' }
/** About a third of the pool, dealt to one to three versions, shuffled within each. */
export function randomHistory (r: () => number): History {
  const keys = pool.map((p) => p.key).filter((key) => key !== 'InternalHidden' && r() < 0.35)
  const chosen: string[] = []
  for (const k of keys) { const c = pool.find((p) => p.key === k)!.conflicts ?? []; if (!chosen.some((x) => c.includes(x))) chosen.push(k) }
  if (chosen.length === 0) chosen.push(pool[Math.floor(r() * pool.length)].key)
  const nv = 1 + Math.floor(r() * 3)
  const versions = VERSIONS.slice(0, nv).map((value) => ({ value, changes: [] as string[] }))
  for (const k of chosen) versions[Math.floor(r() * nv)].changes.push(k)
  // The HeadVersion always hides HEAD's internal field; with a path move (no converters) in a quarter of the histories.
  const head = { value: 'head', changes: ['InternalHidden'] }
  const moved = versions.find((v) => v.changes.includes('PathMove'))
  if (moved !== undefined && r() < 0.25) { moved.changes.splice(moved.changes.indexOf('PathMove'), 1); head.changes.push('PathMove') }
  versions.unshift(head)
  // A fifth of the histories name the version in the path (`/2001-01-01/orders`) rather than the header.
  if (r() < 0.2) return { versions: versions.filter((v) => v.changes.length > 0), location: 'path' }
  for (const v of versions) v.changes.sort(() => r() - 0.5)
  return { versions: versions.filter((v) => v.changes.length > 0) }
}

/** More of the application: its `captureExchanges` option; `renderFor`, versions whose subscribers POST /orders renders order.created for. */
export interface BuildExtras { captureExchanges?: CaptureExchangesOptions, renderFor?: readonly string[] }

/**
 * The orders application of history `h`; `items` replaces the pool (a twin with one change made otherwise); `edit`
 * changes HEAD's schemas before the version changes are made (a HEAD change with no version change).
 */
export async function buildApp (h: History, items: PoolItem[] = pool, edit?: (s: Schemas) => void, extra: BuildExtras = {}) {
  const s = headSchemas()
  edit?.(s)
  const shape: Shape = { street: 'street', zip: 'zip', getPath: '/orders/:id', number: 'number', brand: true }
  const versions: Version[] = []
  let head = new HeadVersion()
  for (const v of h.versions) {
    const getPathHere = shape.getPath
    const classes: VersionChangeClass[] = []
    for (const k of v.changes) { const item = items.find((p) => p.key === k)!; classes.push(item.make(s, shape, { getPathHere })); item.after?.(shape) }
    if (v.value === 'head') head = new HeadVersion(...classes)
    else if (v.preview === true) versions.push(new Version(v.value, ...classes, { channel: 'preview', access: (request) => request.headers['x-beta'] === 'yes' }))
    else versions.push(new Version(v.value, ...classes))
  }
  const store = new Map<string, Static<typeof s.Order>>()
  const seen: { query?: unknown, headers?: unknown, address?: unknown } = {}
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(head, ...versions, new Version('2000-01-01')), apiVersionLocation: h.location ?? 'header', ...(extra.captureExchanges === undefined ? {} : { captureExchanges: extra.captureExchanges }) })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: s.Order, response: { 201: s.Order, 422: s.Problem } } }, async (req, reply) => {
      const order = req.body
      if (order.note === 'reject') return reply.code(422).send({ code: 'invalid', field: 'note' })
      store.set(order.id, { ...order, internal: 'kept from clients' })
      if (extra.renderFor !== undefined && extra.renderFor.length > 0) {
        await app.versioner.webhooks.render('order.created', store.get(order.id), { subscribers: extra.renderFor.map((version, at) => ({ id: `e${at}`, version, secret: SECRET })) })
      }
      return reply.code(201).send(order)
    })
    api.get('/orders/:id', { schema: { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, querystring: s.Query, headers: s.Headers, response: { 200: s.Order, 404: s.NotFound } } }, async (req: any, reply) => {
      seen.query = { ...req.query }; seen.headers = req.headers['x-trace']
      const o = store.get(req.params.id)
      if (o === undefined) return reply.code(404).send({ code: 'not_found', message: 'no order ' + req.params.id })
      return o
    })
    api.post('/addresses', { schema: { body: s.Address, response: { 200: s.Address } } }, async (req) => { seen.address = req.body; return req.body })
  }))
  app.versioner.webhooks.add({ name: 'order.created', body: s.Order })
  app.versioner.webhooks.add({ name: 'order.updated', body: s.Order })
  app.versioner.webhooks.add({ name: 'address.changed', body: s.Address })
  return { app, s, store, seen }
}

// ---- values from a version's document
type J = any
export function resolve (doc: J, sch: J): J { while (sch?.$ref !== undefined) { const name = sch.$ref.split('/').pop(); sch = doc.components.schemas[name] } return sch }
const NASTY_STR = ['', 'é', 'ü€😀', 'a"b\\c', '\u2028', 'kept', '0', 'null', '[redacted]x', 'Ünïcödé']
const NASTY_INT = [0, -0, 1, -1, 1e21, 2 ** 53, -(2 ** 31), 999999999]
/**
 * A value of `sch` (in `doc`), drawn with `r`. `nasty` also draws edge values (empty and non-ASCII strings, -0, 1e21,
 * non-ASCII record keys) and shuffles key order; without it the draws are as they always were (the seeds' histories).
 */
export function gen (doc: J, sch: J, r: () => number, depth = 0, nasty = false): unknown {
  sch = resolve(doc, sch)
  const next = (sub: J): unknown => gen(doc, sub, r, depth + 1, nasty)
  if (sch.anyOf ?? sch.oneOf) { const alts = sch.anyOf ?? sch.oneOf; return gen(doc, alts[Math.floor(r() * alts.length)], r, depth, nasty) }
  if (sch.const !== undefined) return sch.const
  if (sch.enum) return sch.enum[Math.floor(r() * sch.enum.length)]
  switch (sch.type) {
    case 'null': return null
    case 'integer': {
      if (nasty && r() < 0.3) { const v = NASTY_INT[Math.floor(r() * NASTY_INT.length)]; if ((sch.maximum === undefined || v <= sch.maximum) && (sch.minimum === undefined || v >= sch.minimum)) return v }
      return Math.floor(r() * 1000)
    }
    case 'number': return nasty && r() < 0.3 ? 1.5 : Math.floor(r() * 1000)
    case 'boolean': return r() < 0.5
    case 'string': {
      if (sch.pattern?.startsWith('^[0-9]') || sch.pattern?.startsWith('^(0|')) return String(Math.floor(r() * 1000))
      if (sch.pattern?.includes('\\|')) return 'a' + Math.floor(r() * 9) + '|z' + Math.floor(r() * 9)
      if (nasty && sch.pattern !== undefined) return r() < 0.3 ? '' : 's' + Math.floor(r() * 100)
      if (nasty) return r() < 0.4 ? NASTY_STR[Math.floor(r() * NASTY_STR.length)] : 's' + Math.floor(r() * 100)
      return 's' + Math.floor(r() * 100)
    }
    case 'array': return Array.from({ length: Math.floor(r() * 3) }, () => next(sch.items))
    case 'object': {
      const o: Record<string, unknown> = {}
      const entries = Object.entries(sch.properties ?? {})
      if (nasty) entries.sort(() => r() - 0.5)
      for (const [k, p] of entries) if ((sch.required ?? []).includes(k) || r() < 0.6) o[k] = next(p)
      const pp = sch.patternProperties ?? (typeof sch.additionalProperties === 'object' ? { x: sch.additionalProperties } : undefined)
      if (pp) { const vs = Object.values(pp); for (let i = 0; i < Math.floor(r() * 3); i++) o[nasty && r() < 0.3 ? 'ключ' + i : 'k' + i] = next(vs[0]) }
      return o
    }
  }
  throw new Error('cannot generate ' + JSON.stringify(sch))
}

/**
 * What is wrong with history `h` (empty: nothing): start-up fails only with a coded error; in every version, bodies
 * built from the version's own document get a 2xx that validates against it and equals what was sent (an echo),
 * webhooks render it too, a query string and a header reach the handler in HEAD's form, a 404 validates; with
 * `verify`, its findings.
 */
export async function checkHistory (h: History, seed: number, opts: { verify?: boolean } = {}): Promise<string[]> {
  const problems: string[] = []
  const r = rng(seed)
  let built
  try { built = await buildApp(h); await built.app.ready() } catch (e: any) {
    if (typeof e?.code === 'string' && e.code.startsWith('FST_VERSIONER_')) return [`START ${e.code}: ${e.message}`]
    return [`START CRASH ${e?.code} ${e?.stack}`]
  }
  const { app, seen } = built
  try {
    const values = ['2000-01-01', ...h.versions.map((v) => v.value).filter((value) => value !== 'head')]
    // Versions older than the one whose change added the webhook order.updated lack it.
    const added = h.versions.find((v) => v.changes.includes('UpdatedNew'))?.value
    const lacksUpdated = (version: string): boolean => added !== undefined && version < added
    for (const version of values) {
      const hd: Record<string, string> = h.location === 'path' ? {} : { 'x-api-version': version }
      // With path versions, every request's path starts with the version, and the documents' paths too.
      const inject = async (options: { method?: 'POST', url: string, headers: Record<string, string>, payload?: object }) =>
        await app.inject(h.location === 'path' ? { ...options, url: `/${version}${options.url}` } : options)
      const docRes = await app.inject({ url: `/openapi.json?version=${version}` })
      if (docRes.statusCode !== 200) { problems.push(`${version}: doc ${docRes.statusCode}`); continue }
      const doc = docRes.json()
      const ajv = new Ajv({ strict: false, allErrors: true })
      // Each schema compiled once per version (Ajv caches by object, and each call made a new one): 3 of 7 compilations.
      const compiled = new Map<J, ReturnType<typeof ajv.compile>>()
      const valid = (sch: J, value: unknown): string | undefined => {
        let f = compiled.get(sch)
        if (f === undefined) compiled.set(sch, f = ajv.compile({ ...sch, components: doc.components }))
        return f(value) ? undefined : ajv.errorsText(f.errors)
      }
      const ops: J = Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path.replace(/^\/(\{[^}]+\}|\d{4}-\d{2}-\d{2})(?=\/)/, ''), item]))
      // POST /orders
      const postOp = ops['/orders']?.post
      const reqSchema = postOp.requestBody.content['application/json'].schema
      for (let i = 0; i < 3; i++) {
        const body = gen(doc, reqSchema, r) as Record<string, unknown>
        body.id = `o${seed}_${version}_${i}`
        const res = await inject({ method: 'POST', url: '/orders', headers: hd, payload: body })
        if (res.statusCode !== 201) { problems.push(`${version}: POST /orders ${res.statusCode} ${res.body} sent ${JSON.stringify(body)}`); break }
        const bad = valid(postOp.responses['201'].content['application/json'].schema, res.json())
        if (bad) problems.push(`${version}: POST /orders response invalid: ${bad} ${res.body}`)
        if (!isDeepStrictEqual(res.json(), body)) { problems.push(`${version}: POST /orders echo differs: sent ${JSON.stringify(body)} got ${res.body}`); break }
        // webhook
        const head = built.store.get(body.id as string)
        for (const name of ['order.created', 'order.updated']) {
          const w = await app.versioner.webhooks.render(name, head, { subscribers: [{ id: 'e', version, secret: SECRET }] })
          if (name === 'order.updated' && lacksUpdated(version)) {
            if (w.skipped.length !== 1) problems.push(`${version}: webhook ${name} not skipped`)
            continue
          }
          if (w.deliveries.length !== 1) { problems.push(`${version}: webhook ${name} ${inspect(w.failed)}`); continue }
          if (!isDeepStrictEqual(JSON.parse(w.deliveries[0].body), body)) problems.push(`${version}: webhook ${name} differs: ${w.deliveries[0].body} vs ${JSON.stringify(body)}`)
        }
        // GET one
        const getPath = Object.keys(ops).find((p) => p !== '/orders' && p !== '/addresses' && ops[p].get)!
        const getOp = ops[getPath].get
        const qp: Record<string, string> = {}; const expectQ: Record<string, unknown> = {}
        let trace: string | undefined
        const hdrs: Record<string, string> = { ...hd }
        for (const p of getOp.parameters ?? []) {
          if (p.in === 'query') {
            const v = gen(doc, p.schema, r)
            qp[p.name] = String(v)
            const headName = p.name === 'max' ? 'limit' : p.name
            expectQ[headName] = headName === 'limit' ? Number(v) : String(v)
          }
          if (p.in === 'header' && p.name !== 'x-api-version') { trace = 't' + Math.floor(r() * 99); hdrs[p.name] = trace }
        }
        const url = getPath.replace('{id}', String(body.id)) + '?' + new URLSearchParams(qp).toString()
        const g = await inject({ url, headers: hdrs })
        if (g.statusCode !== 200) { problems.push(`${version}: GET ${url} ${g.statusCode} ${g.body}`); break }
        if (!isDeepStrictEqual(g.json(), body)) problems.push(`${version}: GET differs ${g.body} vs ${JSON.stringify(body)}`)
        if (!isDeepStrictEqual(seen.query, expectQ)) problems.push(`${version}: GET query as handled ${JSON.stringify(seen.query)} expected ${JSON.stringify(expectQ)} sent ${JSON.stringify(qp)}`)
        if (seen.headers !== trace) problems.push(`${version}: GET header as handled ${seen.headers} expected ${trace}`)
        const nf = await inject({ url: getPath.replace('{id}', 'missing'), headers: hd })
        if (nf.statusCode !== 404) problems.push(`${version}: missing ${nf.statusCode}`)
        else { const bad404 = valid(getOp.responses['404'].content['application/json'].schema, nf.json()); if (bad404) problems.push(`${version}: 404 invalid ${bad404} ${nf.body}`) }
      }
      // POST /addresses
      const aOp = ops['/addresses'].post
      const a = gen(doc, aOp.requestBody.content['application/json'].schema, r)
      const ar = await inject({ method: 'POST', url: '/addresses', headers: hd, payload: a as object })
      if (ar.statusCode !== 200 || !isDeepStrictEqual(ar.json(), a)) problems.push(`${version}: POST /addresses ${ar.statusCode} ${ar.body} vs ${JSON.stringify(a)}`)
      const aw = await app.versioner.webhooks.render('address.changed', seen.address, { subscribers: [{ id: 'e', version, secret: SECRET }] })
      if (aw.deliveries.length !== 1 || !isDeepStrictEqual(JSON.parse(aw.deliveries[0].body), a)) problems.push(`${version}: webhook address.changed ${aw.deliveries[0]?.body} ${inspect(aw.failed)} vs ${JSON.stringify(a)}`)
      // A 422 of POST /orders names the field as the version does.
      const noteName = Object.keys(resolve(doc, reqSchema).properties).find((k) => k === 'note' || k === 'memo')
      const rejected = { ...(gen(doc, reqSchema, r) as object), id: `r${seed}`, [noteName as string]: 'reject' }
      const rj = await inject({ method: 'POST', url: '/orders', headers: hd, payload: rejected })
      const problemSchema = postOp.responses['422'].content['application/json'].schema
      if (rj.statusCode !== 422) problems.push(`${version}: rejected POST /orders ${rj.statusCode} ${rj.body}`)
      else {
        const bad = valid(problemSchema, rj.json())
        if (bad !== undefined || rj.json().field !== noteName) problems.push(`${version}: 422 body ${rj.body}: ${bad ?? `field is not ${noteName}`}`)
      }
    }
    // `check` of the application against its own export finds nothing.
    const dir = await mkdtemp(join(tmpdir(), 'random-history-'))
    try {
      await exportDocuments(app, dir)
      const { breaks, notes } = await checkDocuments(app, dir)
      for (const change of [...breaks, ...notes]) problems.push(`CHECK ${change.text}`)
    } finally { await rm(dir, { recursive: true, force: true }) }
    if (opts.verify === true) {
      const findings = await verify(app, { examples: 30, seed })
      for (const f of findings) problems.push(`VERIFY ${f.text ?? JSON.stringify(f)}`)
    }
  } finally { await app.close() }
  return problems
}
