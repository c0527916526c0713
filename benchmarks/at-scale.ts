/**
 * Question: what does serving an API with a long history cost, when a team releases a version a month for years
 * (48 versions after four, 96 after eight) over 100+ routes that share schemas its changes touch? What grows faster
 * than the versions?
 *
 * The application is test/helpers/many-releases.ts at release n (one version change a release: renames, an enum
 * member renamed, added and removed, a retype to digits with a `pattern`, a status moved, a nested field, a field
 * made required, an error's field renamed, a path moved; converters on both sides) with 50 more pairs of routes
 * (`GET` and `POST /accounts/:k/customers`) on its schemas: 105 routes. Each size runs in a fresh process
 * (`benchmarks/_at-scale-app.ts`), which measures: `ready()` and RSS after it; the oldest version's document (first and
 * later), the fingerprint, the changelog; the docs page; the upgrade guide from the oldest version to the newest (first,
 * later, and the range from the second); µs a request of the newest, middle and oldest versions (`app.inject`, least of
 * 7 interleaved windows); a webhook rendered for 48 subscribers spread over the versions; `migrateResponseBody` from
 * HEAD to the oldest version. The machine is shared: only factors of 2 or more, repeated, are worth reading.
 *
 * Run: `npm run bench -- at-scale` (not run by tests). Knobs: BENCH_AT_SCALE_VERSIONS (default 12,24,48,96),
 * BENCH_AT_SCALE_COPIES (default 50 pairs of routes).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fixed, markdownTable } from './_measure'

const SIZES = (process.env.BENCH_AT_SCALE_VERSIONS ?? '12,24,48,96').split(',').map(Number).filter((size) => Number.isInteger(size) && size >= 2)
const COPIES = Math.max(0, Number(process.env.BENCH_AT_SCALE_COPIES ?? 50) || 0)

type Result = Record<string, number>

function run (versions: number): Result {
  const args = ['--expose-gc', '--import', 'tsx', join(__dirname, '_at-scale-app.ts'), String(versions), String(COPIES)]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 })
  const line = child.stdout.trim().split('\n').pop() ?? ''
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`${versions} versions: exit ${String(child.status)}`)
  return JSON.parse(line) as Result
}

const COLUMNS: ReadonlyArray<readonly [string, string, number]> = [
  ['readyMs', 'ready ms', 0], ['rssReady', 'RSS MB', 0], ['docFirst', 'oldest doc ms', 0], ['docLater', 'again', 1], ['pageBytes', 'docs page B', 0],
  ['upgradeFirst', 'guide ms', 0], ['upgradeSecond', 'next range ms', 0], ['upgradeBytes', 'guide B', 0], ['rssAfterGuide', 'RSS MB after', 0],
  ['newestUs', 'newest µs', 0], ['middleUs', 'middle µs', 0], ['oldestUs', 'oldest µs', 0], ['webhookLater', '48 webhooks ms', 1],
  ['migrateLaterUs', 'migrate µs', 1]
]

function main (): void {
  console.log(`${COPIES * 2 + 5} routes, Node ${process.version}\n`)
  const rows: string[][] = []
  for (const versions of SIZES) {
    const result = run(versions)
    console.log(JSON.stringify(result))
    rows.push([String(versions), ...COLUMNS.map(([key, , decimals]) => fixed(result[key], decimals))])
  }
  console.log(`\n${markdownTable(['versions', ...COLUMNS.map(([, title]) => title)], rows)}`)
}

main()
