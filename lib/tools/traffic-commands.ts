/**
 * The commands `replay` and `mutate` on a loaded application: the traffic file read (./traffic-file.ts; each line that
 * is not an exchange printed, and the exit code 1), then replay's findings (./replay-traffic.ts) or mutate's score and
 * survivors (./mutate.ts), and the exit code: 1 for a finding, a malformed line, no exchange replayed, or a score below
 * `--min-score`.
 * @module
 */
import { readFile } from 'node:fs/promises'
import { gunzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { VersionerToolError } from '../core/errors'
import type { CommandOutput } from './api-commands'
import type { AppBuilder } from './handler-replay'
import { mutateConverters, type MutationReport } from './mutate'
import { replayTraffic, type ReplayReport } from './replay-traffic'
import { readTraffic, type Traffic, type TrafficProblem } from './traffic-file'
import type { VerifyOptions } from './verify'

/** One run of `replay` or `mutate`, as the command line gave it. */
export interface TrafficRun {
  readonly command: 'replay' | 'mutate'
  /** `--traffic <file>`: NDJSON exchanges (required for replay). */
  readonly traffic: string | undefined
  /** `--min-score N` of mutate (percent). */
  readonly minScore: number | undefined
  /** `--examples N`, `--seed N`: verify's, for mutate. */
  readonly verifyOptions: VerifyOptions
  readonly api: string | undefined
  /** `--handlers` of replay: a builder of fresh applications from the module. */
  readonly handlers?: AppBuilder
}

/** How many lines of a group of findings, or of malformed lines, are named. */
const LINES_NAMED = 20

/** The traffic file read, its malformed lines printed (the first {@link LINES_NAMED}, and how many others). */
async function trafficOf (file: string, io: CommandOutput): Promise<Traffic> {
  let text: string
  try {
    const bytes = await readFile(file)
    // A log pipeline's gzip file (`exchanges.ndjson.gz`) is read as its text.
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8')
  } catch (error) {
    throw new VersionerToolError(`cannot read the traffic file ${file}: ${(error as Error).message}`)
  }
  const traffic = readTraffic(text)
  const say = (problem: TrafficProblem): void => { io.err(`malformed: ${file} line ${problem.line}: ${problem.message}`) }
  traffic.problems.slice(0, LINES_NAMED).forEach(say)
  const more = traffic.problems.length - LINES_NAMED
  // A file that is not a capture (a log file, another export) is not named line by line.
  if (more > 0) io.err(`malformed: ${file}: and ${more} more line(s) that are not exchanges (the NDJSON a captureExchanges subscriber writes, one exchange or webhook render a line).`)
  return traffic
}

/** Items of one cause, in the file's order: those with the same `keyOf`. */
function causes<Item> (items: readonly Item[], keyOf: (item: Item) => string): Item[][] {
  const groups = new Map<string, Item[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [item])
    else group.push(item)
  }
  return [...groups.values()]
}

/** Prints the first item of each group, then the lines of the others (`alike` says how they are alike). */
function printCauses<Item extends { readonly line: number }> (groups: Item[][], print: (item: Item) => void, say: (line: string) => void, alike: string): void {
  for (const [first, ...others] of groups) {
    print(first)
    if (others.length === 0) continue
    const named = others.slice(0, LINES_NAMED).map((item) => item.line).join(', ')
    say(`  and ${others.length} more like it (${alike}): line${others.length === 1 ? '' : 's'} ${named}${others.length > LINES_NAMED ? ', …' : ''}.`)
  }
}

/**
 * Prints replay's findings and the exchanges not replayed (one per cause, with the lines of the others: a converter
 * changed as a team would fails every exchange through it) and the verdict; 1 for a finding, or when no exchange was replayed.
 */
function printReplay (report: ReplayReport, file: string, io: CommandOutput): number {
  // One cause: the same route, version, direction and kind, at the same place (list items as `*`), by the same converters.
  const findings = causes(report.findings, (finding) => JSON.stringify([finding.route, finding.version, finding.direction, finding.kind, finding.part,
    finding.pointer.replace(/\/\d+(?=\/|$)/g, '/*'), finding.versionChanges, finding.converters]))
  printCauses(findings, (finding) => { io.err(`finding: ${finding.text}`) }, io.err, 'same route, version, place and converters')
  const skipped = causes(report.notReplayable, (item) => JSON.stringify([item.route, item.version, item.message]))
  printCauses(skipped, (item) => { io.out(`not replayed: line ${item.line}: ${item.route} (${item.version}): ${item.message}`) }, io.out, 'same route, version and reason')
  const notes = [
    report.redacted === 0 ? '' : `; ${report.redacted} redacted place(s) not compared`,
    report.notReplayable.length === 0 ? '' : `; ${report.notReplayable.length} exchange(s) not replayed`,
    report.otherApis === 0 ? '' : `; ${report.otherApis} exchange(s) of other APIs left to them`,
    report.answers === undefined ? '' : `; ${report.answers.compared} answer(s) of fresh apps' handlers compared, ${report.answers.volatile} place(s) they make anew left out`
  ].join('')
  if (report.replayed + report.deliveries === report.notReplayable.length) {
    // An empty file (a capture that published nothing, a wrong file, one recorded before the versions were renumbered) proves nothing: CI must not pass on it.
    io.err(`replay: no exchange of ${file} was replayed${notes}, so nothing was compared; record traffic with the captureExchanges ` +
      `option${report.notReplayable.length === 0 ? '' : ' (again, by this release)'} and point --traffic at it.`)
    return 1
  }
  const replayed = `${report.replayed} exchange(s)${report.deliveries === 0 ? '' : ` and ${report.deliveries} webhook delivery(ies)`}`
  io.out(report.findings.length === 0
    ? `replay: every one of ${replayed} of ${file} migrates as recorded${notes}.`
    : `replay: ${report.findings.length} finding(s) in ${replayed} of ${file}${notes}.`)
  return report.findings.length === 0 ? 0 : 1
}

/** Prints mutate's survivors (by version change and converter) and score; 1 below `minScore`. */
function printMutate (report: MutationReport, minScore: number | undefined, io: CommandOutput): number {
  if (report.baseline.verify + report.baseline.replay > 0) {
    io.out(`note: verify reports ${report.baseline.verify} finding(s) and replay ${report.baseline.replay} on the converters as they are; ` +
      'a mutant is killed only by a finding at another place: fix those first.')
  }
  // By code points, not localeCompare: the machine's language would order the lines otherwise (Estonian sorts Z before T).
  const order = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0)
  const survivors = report.mutants.filter((mutant) => mutant.verdict === 'survived')
    .sort((left, right) => order(left.versionChange, right.versionChange) || order(left.description, right.description))
  for (const mutant of survivors) io.out(`survivor: ${mutant.versionChange} (${mutant.version}) ${mutant.description}`)
  const by = (tool: 'verify' | 'replay'): number => report.mutants.filter((mutant) => mutant.killedBy === tool).length
  // No mutant at all (no version change has a converter) is no mutant found equivalent.
  const none = report.mutants.length === 0 ? 'no score (no converter to mutate)' : 'no score (every mutant is equivalent)'
  const score = report.score === undefined ? none : `score ${report.score} %`
  io.out(`mutate: ${score} (${report.killed} of ${report.killed + report.survived} mutants killed: verify ${by('verify')}, replay ${by('replay')}; ` +
    `${report.equivalent} equivalent, left out) in ${(report.milliseconds / 1000).toFixed(1)} s.`)
  if (minScore === undefined || report.score === undefined || report.score >= minScore) return 0
  io.err(`mutate: the score ${report.score} % is below --min-score ${minScore}.`)
  return 1
}

/**
 * Runs `replay` or `mutate` on a readied application; returns the exit code.
 * @example
 * ```ts
 * const code = await runTrafficCommand(app, { command: 'replay', traffic: 'exchanges.ndjson', minScore: undefined, verifyOptions: {}, api: undefined }, { out: console.log, err: console.error })
 * ```
 */
export async function runTrafficCommand (app: FastifyInstance, run: TrafficRun, io: CommandOutput): Promise<number> {
  const traffic = run.traffic === undefined ? undefined : await trafficOf(run.traffic, io)
  const malformed = traffic !== undefined && traffic.problems.length > 0 ? 1 : 0
  if (run.command === 'replay') {
    const report = await replayTraffic(app, traffic as Traffic, { api: run.api, handlers: run.handlers })
    return Math.max(malformed, printReplay(report, run.traffic as string, io))
  }
  // An empty capture kills nothing: the score is verify's alone, which the run must not pass off as the traffic's.
  if (traffic !== undefined && traffic.exchanges.length + traffic.deliveries.length === 0) {
    io.err(`note: ${run.traffic as string} holds no exchange or webhook render: the score is verify's alone; record traffic with the captureExchanges option and point --traffic at it.`)
  }
  const report = await mutateConverters(app, { traffic: traffic?.exchanges, deliveries: traffic?.deliveries, examples: run.verifyOptions.examples, seed: run.verifyOptions.seed, api: run.api })
  return Math.max(malformed, printMutate(report, run.minScore, io))
}
