/**
 * Question: how does `verify`'s time grow with the number of versions, when the application does not grow? A team
 * adds a version every month: 48 after four years, 96 after eight.
 *
 * The application is test/helpers/many-releases.ts: a customers API at release n (n versions, one version change
 * each: renames, a plan renamed, a field added and removed, retypes, a status moved, a nested field, a field made
 * required, a plan added and removed, an error's field renamed with an error converter, a path moved; converters on
 * both sides). Its routes and schemas keep their size; only its history grows. `verify(app)` runs in process (the
 * tools entry's function, as a test calls it), after `ready()`, twice per size: the machine is shared, so both runs
 * are printed, with the CPU time of the process (`process.cpuUsage`) beside the wall time. The examples replayed are
 * counted: they grow with the versions (every version's requests and responses), so CPU per 1000 examples is what
 * says whether a replay costs more as the versions grow.
 *
 * Run: `npm run bench -- verify-versions` (not run by tests). Knobs: BENCH_VERIFY_VERSIONS (default 12,24,48,96),
 * BENCH_VERIFY_EXAMPLES (examples per route, version, direction and part; default 20, as `mutate` and the long-chain
 * tests use; `verify`'s own default is 200), BENCH_VERIFY_ROUNDS (default 2).
 */
import { manyReleasesApp } from '../test/helpers/many-releases'
import { verify } from '../lib/tools/verify'
import { fixed, markdownTable } from './_measure'

const SIZES = (process.env.BENCH_VERIFY_VERSIONS ?? '12,24,48,96').split(',').map(Number).filter((size) => Number.isInteger(size) && size >= 2)
const EXAMPLES = Math.max(1, Number(process.env.BENCH_VERIFY_EXAMPLES ?? 20) || 20)
const ROUNDS = Math.max(1, Number(process.env.BENCH_VERIFY_ROUNDS ?? 2) || 2)

interface Run { readonly wall: number, readonly cpu: number, readonly replayed: number, readonly findings: number }

/** One `verify` of the application at `versions` versions: wall and CPU seconds, examples replayed, findings. */
async function run (versions: number): Promise<Run> {
  const closes: Array<() => unknown> = []
  const app = await manyReleasesApp({ teardown: (close) => { closes.push(close) } }, versions)
  await app.ready()
  const [cpu, wall] = [process.cpuUsage(), performance.now()]
  const findings = await verify(app, { examples: EXAMPLES })
  const used = process.cpuUsage(cpu)
  const result = { wall: (performance.now() - wall) / 1000, cpu: (used.user + used.system) / 1e6, replayed: findings.replayed, findings: findings.length }
  for (const close of closes) await close()
  return result
}

async function main (): Promise<void> {
  console.log(`verify, ${EXAMPLES} examples per route, version, direction and part; ${ROUNDS} run(s) per size, Node ${process.version}\n`)
  const rows: string[][] = []
  for (const versions of SIZES) {
    const runs: Run[] = []
    for (let round = 0; round < ROUNDS; round++) runs.push(await run(versions))
    const all = (pick: (each: Run) => string): string => runs.map(pick).join(' / ')
    rows.push([String(versions), String(runs[0].replayed), String(runs[0].findings), all((each) => fixed(each.wall, 2)), all((each) => fixed(each.cpu, 2)),
      all((each) => fixed(each.cpu * 1e6 / each.replayed, 0))])
    console.log(`${versions} versions: wall ${all((each) => fixed(each.wall, 2))} s, CPU ${all((each) => fixed(each.cpu, 2))} s, ${runs[0].replayed} examples`)
  }
  console.log(`\n${markdownTable(['versions', 'examples', 'findings', 'wall s', 'CPU s', 'CPU ms / 1000 examples'], rows)}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
