/**
 * Question (issue 34): what does `renderWebhook` cost per subscriber beyond the first of each version, for 1,000
 * subscribers across 10 versions (the per-request benchmark's bundle, `benchmarks/_http-app.ts`: the webhook body is
 * its `User`, converted by 9 response converters down to the oldest version)? Target: ≤ 20 µs a subscriber.
 *
 * Paired in one process: rounds alternate (order rotated every round) between rendering for 10 subscribers (the first
 * of each version: every version's migration, no more) and for 1,000 (100 a version, each with its own secret). The
 * cost beyond the first of each version is the median over rounds of (time of 1,000 − time of 10) / 990. For scale,
 * the loop teams wrote before `render`: `migrateResponseBody` then an HMAC for every subscriber.
 *
 * Run: `npm run bench -- webhook-render` (not run by tests). Knobs: BENCH_WEBHOOK_ROUNDS (default 40),
 * BENCH_WEBHOOK_RENDERS (renders a window, default 5).
 */
import { createHmac, randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import type { WebhookSubscriber } from '../plugin'
import { buildVersions, User, VERSION_COUNT, VERSION_VALUES } from './_http-app'
import { fixed, markdownTable, median } from './_measure'
import { loadPlugin, preparePlugin } from './_plugin'

const ROUNDS = Math.max(4, Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 40) || 40)
const RENDERS = Math.max(1, Number(process.env.BENCH_WEBHOOK_RENDERS ?? 5) || 5)
const SUBSCRIBERS = 1000
const TARGET_US = 20

type Kind = 'first of each version' | 'all 1,000' | 'by hand, all 1,000'

async function main (): Promise<void> {
  const source = preparePlugin()
  const { renderWebhook, migrateResponseBody } = loadPlugin()
  const versions = buildVersions()
  const webhook = { name: 'user.updated', body: User }
  const latestBody = { id: 'user_42', name: 'Ada Lovelace', email: 'ada@example.com', age: 36, country: 'GB', newsletter: true }
  const all: Array<WebhookSubscriber & { secret: string }> = Array.from({ length: SUBSCRIBERS }, (_, index) => ({
    id: `ep_${index}`, version: VERSION_VALUES[index % VERSION_COUNT], secret: `whsec_${randomBytes(32).toString('base64')}`
  }))
  const first = all.slice(0, VERSION_COUNT)
  const timestamp = new Date()
  const render = async (subscribers: typeof all): Promise<number> => (await renderWebhook(versions, webhook, latestBody, { subscribers, id: 'msg_1', timestamp })).deliveries.length
  // What teams wrote before render: every subscriber migrated and signed on its own.
  const byHand = async (subscribers: typeof all): Promise<number> => {
    let sent = 0
    const seconds = Math.floor(timestamp.getTime() / 1000)
    for (const subscriber of subscribers) {
      const body = JSON.stringify(await migrateResponseBody(versions, User, { latestBody, version: subscriber.version as string }))
      const key = Buffer.from((subscriber.secret as string).slice('whsec_'.length), 'base64')
      const signature = `v1,${createHmac('sha256', key).update(`msg_1.${seconds}.${body}`).digest('base64')}`
      if (signature.length > 0) sent++
    }
    return sent
  }
  const tasks: Record<Kind, () => Promise<number>> = {
    'first of each version': async () => await render(first),
    'all 1,000': async () => await render(all),
    'by hand, all 1,000': async () => await byHand(all)
  }
  // Correct before it is timed: every delivery, each signature verifying with standardwebhooks.
  const checked = await renderWebhook(versions, webhook, latestBody, { subscribers: all })
  if (checked.deliveries.length !== SUBSCRIBERS) throw new Error(`rendered ${checked.deliveries.length} deliveries, not ${SUBSCRIBERS}`)
  for (const { subscriber, body, headers } of checked.deliveries.filter((_, index) => index % 97 === 0)) new Webhook(subscriber.secret as string).verify(body, headers)
  const kinds = Object.keys(tasks) as Kind[]
  for (const kind of kinds) for (let index = 0; index < RENDERS; index++) await tasks[kind]()
  const perKind: Record<Kind, number[]> = { 'first of each version': [], 'all 1,000': [], 'by hand, all 1,000': [] }
  const beyond: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const measured = new Map<Kind, number>()
    for (let index = 0; index < kinds.length; index++) {
      const kind = kinds[(index + round) % kinds.length]
      const start = process.hrtime.bigint()
      for (let render = 0; render < RENDERS; render++) await tasks[kind]()
      measured.set(kind, Number(process.hrtime.bigint() - start) / 1e6 / RENDERS)
    }
    for (const kind of kinds) perKind[kind].push(measured.get(kind) ?? NaN)
    beyond.push(((measured.get('all 1,000') ?? NaN) - (measured.get('first of each version') ?? NaN)) / (SUBSCRIBERS - VERSION_COUNT) * 1000)
  }
  // The floor: one HMAC-SHA256 of the body, keyed with a subscriber's key, as node:crypto computes it here.
  const [{ body }] = checked.deliveries
  const key = randomBytes(32)
  const hmacStart = process.hrtime.bigint()
  for (let index = 0; index < 20_000; index++) createHmac('sha256', key).update(body).digest('base64')
  const hmac = Number(process.hrtime.bigint() - hmacStart) / 20_000 / 1000
  const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b)
  console.log(`${source}; ${ROUNDS} rounds of ${RENDERS} renders each, ${VERSION_COUNT} versions, 9 response converters to the oldest\n`)
  console.log(markdownTable(['render', 'ms a render (median)'], kinds.map((kind) => [kind, fixed(median(sorted(perKind[kind])), 3)])))
  const cost = median(sorted(beyond))
  console.log(`\nper subscriber beyond the first of each version: ${fixed(cost)} µs (median of rounds; quartiles ` +
    `${fixed(sorted(beyond)[Math.floor(ROUNDS / 4)])}–${fixed(sorted(beyond)[Math.floor(ROUNDS * 3 / 4)])} µs); target ≤ ${TARGET_US} µs: ${cost <= TARGET_US ? 'met' : 'not met'}; one HMAC-SHA256 alone: ${fixed(hmac)} µs`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
