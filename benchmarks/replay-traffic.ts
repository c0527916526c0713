/**
 * Question (issue 33): how long do `replay` and `mutate` take on the example apps? Targets: `replay` of 10,000
 * recorded exchanges in ≤ 5 s on 2 cores; `mutate` of each example app (with its recorded traffic) in ≤ 30 s.
 *
 * The traffic is recorded from the billing example's clients (examples/traffic.ts: every version creating, reading,
 * replacing, invoicing, paying, searching; about 25 exchanges a round), then repeated to 10,000 lines (replay does the
 * same work for a line whatever came before it). `replay` is timed from the file's text: reading the lines and
 * replaying them (`readTraffic`, `replayTraffic`), as the command does once the app is loaded. The reference, in the
 * same process and rounds, alternating: `verify` of the same app with its defaults (200 examples per route, version,
 * direction and part), the proof CI runs already.
 *
 * `mutate` is timed once per example app, with the traffic of 20 rounds and verify's 20 examples (the command's
 * defaults), against the same app's `verify` run just before it.
 *
 * The examples load the TypeScript sources (through tsx), so these figures are a little above the build's. Run:
 * `npm run bench -- replay-traffic` (not run by tests). Knobs: BENCH_REPLAY_EXCHANGES (default 10000),
 * BENCH_REPLAY_ROUNDS (default 3).
 */
import type { FastifyInstance } from 'fastify'
import { recordTraffic, type ExampleName } from '../examples/traffic'
import { buildApp } from '../examples/users/app'
import { buildBillingApp } from '../examples/billing/app'
import { mutateConverters } from '../lib/tools/mutate'
import { verify as verifyApp } from '../lib/tools/verify'
import { replayTraffic } from '../lib/tools/replay-traffic'
import { readTraffic } from '../lib/tools/traffic-file'
import { fixed, markdownTable, median } from './_measure'

const EXCHANGES = Math.max(100, Number(process.env.BENCH_REPLAY_EXCHANGES ?? 10_000) || 10_000)
const ROUNDS = Math.max(1, Number(process.env.BENCH_REPLAY_ROUNDS ?? 3) || 3)

/** Wall-clock seconds of `task`. */
async function seconds (task: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await task()
  return (performance.now() - start) / 1000
}

async function readied (name: ExampleName): Promise<FastifyInstance> {
  const app = name === 'users' ? await buildApp() : await buildBillingApp()
  await app.ready()
  return app
}

async function main (): Promise<void> {
  const recorded = await recordTraffic('billing', 40)
  const lines: string[] = []
  while (lines.length < EXCHANGES) lines.push(...recorded)
  const text = lines.slice(0, EXCHANGES).join('\n')
  const app = await readied('billing')
  const replay: number[] = []
  const verify: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const replayRun = async (): Promise<void> => {
      const report = await replayTraffic(app, readTraffic(text))
      if (report.findings.length > 0 || report.replayed !== EXCHANGES) throw new Error(`replay: ${report.findings.length} finding(s), ${report.replayed} replayed`)
    }
    const verifyRun = async (): Promise<void> => {
      const findings = await verifyApp(app)
      if (findings.length > 0) throw new Error(`verify: ${findings[0].text}`)
    }
    // Alternated, so that the machine's load weighs on both alike.
    if (round % 2 === 0) {
      replay.push(await seconds(replayRun))
      verify.push(await seconds(verifyRun))
    } else {
      verify.push(await seconds(verifyRun))
      replay.push(await seconds(replayRun))
    }
  }
  await app.close()
  const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b)
  console.log(`replay of ${EXCHANGES} exchanges of the billing example (${recorded.length} distinct), ${ROUNDS} rounds; medians\n`)
  console.log(markdownTable(['run', 'seconds (median)', 'target'], [
    [`replay, ${EXCHANGES} exchanges`, fixed(median(sorted(replay))), '≤ 5 s'],
    ['verify (reference, 200 examples)', fixed(median(sorted(verify))), '–']
  ]))

  const rows: string[][] = []
  for (const name of ['users', 'billing'] as const) {
    const traffic = readTraffic((await recordTraffic(name, 20)).join('\n'))
    const example = await readied(name)
    const reference = await seconds(() => verifyApp(example))
    let score: number | undefined
    let mutants = 0
    const took = await seconds(async () => {
      const report = await mutateConverters(example, { traffic: traffic.exchanges })
      score = report.score
      mutants = report.mutants.length
    })
    await example.close()
    rows.push([name, String(traffic.exchanges.length), String(mutants), `${String(score)} %`, fixed(took), fixed(reference), '≤ 30 s'])
  }
  console.log('\nmutate of each example app with its recorded traffic\n')
  console.log(markdownTable(['app', 'exchanges', 'mutants', 'score', 'mutate (s)', 'verify (s, reference)', 'target'], rows))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
