// Replay against random histories and random traffic: the traffic an application records of every version
// (test/helpers/random-traffic.ts), written as the README says, replays cleanly against the same application, with
// and without --handlers, and read twice gives the same report; a converter mistake planted in a twin is a finding
// on every line whose recorded data the twin answers otherwise (serving the same requests), and on no other.
import { test } from 'tap'
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, VersionChange, schema, type RequestInfo, type ResponseInfo } from '../../plugin'
import { randomHistory, rng, pool, type PoolItem } from '../helpers/random-histories'
import { record, recordOnce, replayAgainst } from '../helpers/random-traffic'

function ren (body: Record<string, unknown>, from: string, to: string): void { if (!(from in body)) return; const v = body[from]; delete body[from]; body[to] = v }

/** Mistakes a team could make in a pool item's converters, each lossy only on some values. */
const mistakes: Array<{ key: string, id: string, make: PoolItem['make'] }> = [
  { key: 'ItemSkuCode', id: 'renames wrong', make: (s) => { class ItemSkuCode extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Item).field('sku').had({ name: 'code' })]; @ConvertRequestToNextVersionFor(s.Item) up (r: RequestInfo) { ren(r.body, 'code', 'sku') } @ConvertResponseToPreviousVersionFor(s.Item) down (r: ResponseInfo) { ren(r.body, 'sku', 'code'); if (r.body.code === '') r.body.code = ' ' } } return ItemSkuCode } },
  { key: 'ItemQtyDigits', id: 'request off by one', make: (s) => { class ItemQtyDigits extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Item).field('qty').had({ type: Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$' }) })]; @ConvertRequestToNextVersionFor(s.Item) up (r: RequestInfo) { r.body.qty = Number(r.body.qty) + (Number(r.body.qty) > 500 ? 1 : 0) } @ConvertResponseToPreviousVersionFor(s.Item) down (r: ResponseInfo) { r.body.qty = String(r.body.qty) } } return ItemQtyDigits } },
  { key: 'NoteMemo', id: '422 field kept', make: (s) => { class NoteMemo extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Order).field('note').had({ name: 'memo' })]; @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'memo', 'note') } @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'note', 'memo') } @ConvertResponseToPreviousVersionFor('/orders', ['POST'], { migrateHttpErrors: true }) problem (_r: ResponseInfo) { } } return NoteMemo } },
  { key: 'TagsLabels', id: 'drops empty', make: (s) => { class TagsLabels extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Order).field('tags').had({ name: 'labels' })]; @ConvertRequestToNextVersionFor(s.Order) up (r: RequestInfo) { ren(r.body, 'labels', 'tags') } @ConvertResponseToPreviousVersionFor(s.Order) down (r: ResponseInfo) { ren(r.body, 'tags', 'labels'); for (const k of Object.keys(r.body.labels)) if (r.body.labels[k] === 0) delete r.body.labels[k] } } return TagsLabels } },
  { key: 'CardBrandNew', id: 'brand cased', make: (s) => { class CardBrandNew extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Card).field('brand').didntExist]; @ConvertRequestToNextVersionFor(s.Card) up (r: RequestInfo) { r.body.brand = 'Unknown' } @ConvertResponseToPreviousVersionFor(s.Card) down (r: ResponseInfo) { delete r.body.brand } } return CardBrandNew }, },
  { key: 'LimitMax', id: 'query drops 0', make: (s, _sh, ctx) => { class LimitMax extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.Query).field('limit').had({ name: 'max' })]; @ConvertRequestToNextVersionFor(ctx.getPathHere, ['GET']) up (r: RequestInfo) { if (Number(r.queryParams.max) > 500) delete r.queryParams.max; else ren(r.queryParams, 'max', 'limit') } } return LimitMax } },
  { key: 'NotFoundType', id: '404 renamed wrong', make: (s) => { class NotFoundType extends VersionChange { description = 'x'; instructionsToMigrateToPreviousVersion = [schema(s.NotFound).field('code').had({ name: 'type' })]; @ConvertResponseToPreviousVersionFor(s.NotFound, { migrateHttpErrors: true }) down (r: ResponseInfo) { ren(r.body, 'code', 'type'); r.body.type = String(r.body.type).toUpperCase() } } return NotFoundType } }
]

type L = Record<string, any>
function keyOf (m: L): string { return m.webhook !== undefined ? `W ${String(m.webhook.name)} ${JSON.stringify(m.event)}` : `E ${String(m.version)} ${String(m.route.method)} ${String(m.route.url)} ${JSON.stringify(m.clientRequest)}` }

/** The lines of `good` whose counterpart in `twin` (the same requests served by the twin) differs where a converter works. */
function linesAnsweredOtherwise (good: readonly string[], twin: readonly string[]): number[] {
  const byKey = new Map<string, L[]>()
  for (const line of twin) { const o = JSON.parse(line) as L; byKey.set(keyOf(o), [...(byKey.get(keyOf(o)) ?? []), o]) }
  const lines: number[] = []
  good.forEach((line, index) => {
    const o = JSON.parse(line) as L
    const t = byKey.get(keyOf(o))?.shift()
    // A render of another event (a request converter changed what was stored): its cause is on another line.
    if (t === undefined) { if (o.webhook === undefined) lines.push(index + 1); return }
    const differs = o.webhook !== undefined
      ? !isDeepStrictEqual(o.deliveries, t.deliveries)
      : ['body', 'query', 'headers'].some((part) => !isDeepStrictEqual(o.handlerRequest[part], t.handlerRequest[part])) ||
        (isDeepStrictEqual(o.handlerResponse, t.handlerResponse) && !isDeepStrictEqual(o.clientResponse, t.clientResponse))
    if (differs) lines.push(index + 1)
  })
  return lines
}

test('random histories: the traffic an application recorded of every version replays cleanly against it, and twice alike', async (t) => {
  for (let seed = 1; seed <= 6; seed++) {
    const r = rng(seed * 7919)
    const h = randomHistory(r)
    const cap = { everyVersion: r() < 0.5, redact: r() < 0.5 }
    const { lines } = await recordOnce(h, seed, cap)
    const text = `${lines.join('\n')}\n`
    const { traffic, report } = await replayAgainst(h, text)
    const about = `seed ${seed}: ${JSON.stringify(h)} ${JSON.stringify(cap)}`
    t.same([traffic.problems, report.findings.map((finding) => finding.text), report.notReplayable], [[], [], []], about)
    t.ok(report.replayed > 10, `${about}: ${report.replayed} exchanges replayed`)
    t.same((await replayAgainst(h, text)).report, report, `${about}: the same report again`)
  }
})

test('random histories: with --handlers, the traffic recorded whole from a fresh state answers as recorded; what redaction kept from the handlers is not replayed, never a finding', async (t) => {
  for (let seed = 100; seed <= 101; seed++) {
    const r = rng(seed * 7919)
    const h = randomHistory(r)
    const cap = { everyVersion: true, redact: r() < 0.5, handlersOnly: true }
    const { lines, renderFor } = await record(h, seed, cap)
    const { report } = await replayAgainst(h, `${lines.join('\n')}\n`, { handlers: true, renderFor })
    t.same(report.findings.map((finding) => finding.text), [], `seed ${seed}: ${JSON.stringify(h)} ${JSON.stringify(cap)}`)
    if (!cap.redact) t.same(report.notReplayable, [], `seed ${seed}: every exchange and render judged`)
  }
})

test('random histories: a converter mistake planted in a twin is a finding on exactly the lines the twin answers otherwise', async (t) => {
  let planted = 0
  for (let seed = 1; seed <= 6; seed++) {
    const r = rng(seed * 7919)
    const h = randomHistory(r)
    const cap = { everyVersion: r() < 0.5, redact: false }
    const keys = h.versions.flatMap((version) => version.changes)
    const good = await recordOnce(h, seed, cap)
    for (const mistake of mistakes.filter((m) => keys.includes(m.key))) {
      const items = pool.map((item) => item.key === mistake.key ? { ...item, make: mistake.make } : item)
      const twin = await record(h, seed, { ...cap, lenient: true }, items)
      const expected = linesAnsweredOtherwise(good.lines, twin.lines)
      const { report } = await replayAgainst(h, `${good.lines.join('\n')}\n`, { items })
      t.same([...new Set(report.findings.map((finding) => finding.line))], expected, `seed ${seed} ${mistake.key}: ${mistake.id}`)
      if (expected.length > 0) planted++
    }
  }
  t.ok(planted >= 15, `${planted} twins whose mistake the traffic shows`)
})
