/**
 * Stage `lib/tools/`: the `fastify-versioner` command and its API, on a readied application.
 *
 * The `fastify-versioner` command: `export`, `check`, `types`, `verify`, `retire`, `replay`, `mutate` and `fingerprint` on an application module. Exit codes: 0 when
 * all is well, 1 when `check` finds a break or `verify` a finding (or the application cannot be used), 2 for a
 * usage error (with the usage text).
 * @module
 */
import { parseArgs } from 'node:util'
import { statSync, type Stats } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { appBuilder, closeApp, loadApp } from './load-app'
import { runOnApis, type CommandOutput } from './api-commands'
import { retire } from './retire'
import { runTrafficCommand, type TrafficRun } from './traffic-commands'
import { describeThrown, terminalLines } from './terminal-text'

/** The usage text the command prints on a usage error. */
export const USAGE = `Usage:
  fastify-versioner export <app> --out <dir> [--api <name>] [--channel preview]
                                                   write <dir>/<version>.json for every version (and unversioned.json)
  fastify-versioner check <app> --against <dir> [--api <name>] [--channel preview]
                                                   exit 1 if a version saved in <dir> changed in a way that breaks its clients
  fastify-versioner check <app> --types <file> [--api <name>] [--channel preview]
                                                   exit 1 if <file> is not what types writes now (with or without --against)
  fastify-versioner types <app> --out <file> [--api <name>] [--channel preview]
                                                   write the TypeScript types of every version to <file>
  fastify-versioner verify <app> [--examples N] [--seed N] [--api <name>]
                                                   exit 1 if a version's generated examples do not migrate cleanly
                                                   (N examples per route, version and direction, default 200; seed 1)
  fastify-versioner retire <app> --version <V> [--usage <file>]... [--quiet-days N] [--examples N] [--seed N] [--api <name>]
                                                   print what retiring V and every older version removes, then check and
                                                   verify the app without them; exit 1 if they find anything, if a retired
                                                   version's sunsetAt has not passed, or if one had traffic in the last N days
                                                   (--quiet-days N, with --usage <file>)
  fastify-versioner replay <app> --traffic <file> [--handlers] [--api <name>]
                                                   exit 1 if a recorded exchange (NDJSON, from captureExchanges) no longer
                                                   migrates as it did: its request up to HEAD, its response down to its version;
                                                   with --handlers, also if fresh apps' handlers answer its client otherwise
  fastify-versioner mutate <app> [--traffic <file>] [--min-score N] [--examples N] [--seed N] [--api <name>]
                                                   mutate the converters and print the share of mutants verify and the replayed
                                                   traffic kill, and the survivors; exit 1 below --min-score N (percent)
  fastify-versioner fingerprint <app> [--against <dir>] [--api <name>]
                                                   print the bundle fingerprint (what app.versioner.fingerprint says);
                                                   with --against, also that of the documents saved in <dir>, and exit 1
                                                   if they differ

<app> is a module whose default export (or export named build) is a function returning a Fastify instance with
fastify-versioner registered, or that instance (or a promise of it). TypeScript modules need tsx installed in the project.
An application with several versioned APIs: each command handles each API (export and check use <dir>/<name>/,
with --api <name> too); --api <name> picks one (its apiName option, or its prefix: /partner is named partner).
export, check and types work on the released versions; --channel preview adds the preview versions (verify checks all).
fastify-versioner --version alone prints the version of the package installed.`

const OPTIONS = {
  out: { type: 'string' },
  against: { type: 'string' },
  types: { type: 'string' },
  examples: { type: 'string' },
  seed: { type: 'string' },
  api: { type: 'string' },
  version: { type: 'string' },
  usage: { type: 'string', multiple: true },
  'quiet-days': { type: 'string' },
  channel: { type: 'string' },
  traffic: { type: 'string' },
  'min-score': { type: 'string' },
  handlers: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

/** A whole number option of `verify` (`undefined` when not given); NaN when it is not one. */
function countOption (value: string | undefined, minimum: number): number | undefined {
  if (value === undefined) return undefined
  return /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) && Number(value) >= minimum ? Number(value) : Number.NaN
}

const COMMANDS = {
  export: { option: 'out' },
  check: { option: 'against' },
  types: { option: 'out' },
  verify: { option: undefined },
  retire: { option: undefined },
  replay: { option: undefined },
  mutate: { option: undefined },
  fingerprint: { option: 'against' }
} as const

/** What is wrong with the flags of `retire` (or with its flags given to another command), if anything. */
function retireUsageProblem (command: string, values: { version?: string, usage?: string[], 'quiet-days'?: string }): string | undefined {
  if (command !== 'retire') {
    const given = (['version', 'usage', 'quiet-days'] as const).find((option) => values[option] !== undefined)
    return given === undefined ? undefined : `--${given} applies to retire only.`
  }
  if (values.version === undefined || values.version === '') return 'retire needs --version <V>: the newest version to retire (every older one goes too).'
  if (values.usage?.includes('') === true) return '--usage needs a file: the JSON usage file (see docs/retiring-and-upgrading.md).'
  const days = values['quiet-days']
  if (days !== undefined && values.usage === undefined) return '--quiet-days needs --usage <file>: the last-seen times it is checked against.'
  if (Number.isNaN(countOption(days, 1))) return `--quiet-days must be a whole number of days, 1 or more; got '${days as string}'.`
  return undefined
}

/** What is wrong with `--traffic` and `--min-score` (given to another command than replay and mutate, or missing), if anything. */
function trafficUsageProblem (command: string, values: { traffic?: string, 'min-score'?: string, handlers?: boolean }): string | undefined {
  const traffic = command === 'replay' || command === 'mutate'
  if (command !== 'replay' && values.handlers !== undefined) return '--handlers applies to replay only.'
  if (!traffic && values.traffic !== undefined) return '--traffic applies to replay and mutate only.'
  if (command !== 'mutate' && values['min-score'] !== undefined) return '--min-score applies to mutate only.'
  if (values.traffic === '' || (command === 'replay' && values.traffic === undefined)) return `${command} needs --traffic <file>: exchanges recorded with the captureExchanges option, one a line.`
  const score = values['min-score']
  if (score !== undefined && !(/^\d+(\.\d+)?$/.test(score) && Number(score) <= 100)) return `--min-score must be a percentage from 0 to 100; got '${score}'.`
  return undefined
}

/** Edits (a character added, removed or changed) between two words. */
function distance (left: string, right: string): number {
  let row = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let i = 1; i <= left.length; i++) {
    const next = [i]
    for (let j = 1; j <= right.length; j++) next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (left[i - 1] === right[j - 1] ? 0 : 1)))
    row = next
  }
  return row[right.length]
}

/**
 * An unknown option said with the option meant (`--example`: `--examples`), instead of parseArgs's hint on positional
 * arguments starting with '-', which a misspelt option is not.
 */
function unknownOption (error: Error & { code?: unknown }): string | undefined {
  const given = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(--?[^'=]+)/.exec(error.message)?.[1] : undefined
  if (given === undefined) return undefined
  const name = given.replace(/^--?/, '')
  // A letter or two off (`--example`, `--agains`), or one word written longer (`--output`, `--version-to-retire`).
  const near = (option: string): boolean => distance(option, name.toLowerCase()) <= Math.min(2, option.length - 2) || (name.length > option.length && name.startsWith(option))
  const meant = Object.keys(OPTIONS).find(near)
  return `unknown option '${given}'${meant === undefined ? '' : `; did you mean --${meant}?`}`
}

function usageError (io: CommandOutput, message: string): number {
  io.err(`fastify-versioner: ${message}`)
  io.err(USAGE)
  return 2
}

/**
 * Runs the command with its arguments (without `node` and the script); returns the exit code.
 * @example
 * ```ts
 * const code = await runCli(['check', 'dist/app.js', '--against', 'openapi'], { out: console.log, err: console.error })
 * ```
 */
export async function runCli (args: readonly string[], terminal: CommandOutput): Promise<number> {
  // Every line through one gate: text from a usage file or an application cannot hold control characters.
  const io: CommandOutput = { out: (text) => terminal.out(terminalLines(text)), err: (text) => terminal.err(terminalLines(text)) }
  // `--version` alone is the package's version (with a command, it is retire's version to retire).
  if (args.length === 1 && args[0] === '--version') {
    io.out(String((createRequire(__filename)('fastify-versioner/package.json') as { version: unknown }).version))
    return 0
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS, allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true })
  } catch (error) {
    return usageError(io, unknownOption(error as Error & { code?: unknown }) ?? (error as Error).message)
  }
  if (parsed.values.help === true) {
    io.out(USAGE)
    return 0
  }
  const [command, appPath, ...extra] = parsed.positionals
  if (command === undefined) return usageError(io, 'name a command: export, check, types, verify, retire, replay, mutate or fingerprint.')
  if (!Object.hasOwn(COMMANDS, command)) return usageError(io, `unknown command '${command}'; the commands are export, check, types, verify, retire, replay, mutate and fingerprint.`)
  const wanted = COMMANDS[command as keyof typeof COMMANDS].option
  if (appPath === undefined) return usageError(io, `${command} needs the application module: fastify-versioner ${command} <app>${wanted === undefined ? '' : ` --${wanted} <dir>`}.`)
  if (extra.length > 0) return usageError(io, `unexpected argument '${extra[0]}'.`)
  for (const option of ['out', 'against'] as const) {
    if (parsed.values[option] !== undefined && option !== wanted) return usageError(io, `--${option} does not apply to ${command}.`)
  }
  const types = parsed.values.types
  if (types !== undefined && command !== 'check') return usageError(io, '--types applies to check only (types writes with --out).')
  if (types === '') return usageError(io, 'check needs --types <file>.')
  for (const option of ['examples', 'seed'] as const) {
    if (parsed.values[option] !== undefined && command !== 'verify' && command !== 'retire' && command !== 'mutate') return usageError(io, `--${option} applies to verify, retire and mutate only.`)
  }
  const retireProblem = retireUsageProblem(command, parsed.values)
  if (retireProblem !== undefined) return usageError(io, retireProblem)
  const channel = parsed.values.channel
  if (channel !== undefined && channel !== 'preview' && channel !== 'release') return usageError(io, `--channel must be preview or release; got '${channel}'.`)
  if (channel !== undefined && (command === 'verify' || command === 'retire' || command === 'replay' || command === 'mutate')) return usageError(io, `--channel does not apply to ${command} (it works on every version, previews included).`)
  if (channel !== undefined && command === 'fingerprint') return usageError(io, '--channel does not apply to fingerprint (it covers the released versions).')
  const verifyOptions = { examples: countOption(parsed.values.examples, 1), seed: countOption(parsed.values.seed, 0) }
  if (Number.isNaN(verifyOptions.examples)) return usageError(io, `--examples must be a whole number of 1 or more; got '${parsed.values.examples as string}'.`)
  if (Number.isNaN(verifyOptions.seed)) return usageError(io, `--seed must be a whole number; got '${parsed.values.seed as string}'.`)
  const trafficProblem = trafficUsageProblem(command, parsed.values)
  if (trafficProblem !== undefined) return usageError(io, trafficProblem)
  // A folder was read as the traffic file: Node's bare EISDIR, exit 1, after the app was loaded.
  const traffic = parsed.values.traffic
  if (traffic !== undefined && isFolder(traffic)) {
    return usageError(io, `--traffic names the traffic file (NDJSON, one exchange a line, optionally gzip), such as ${join(traffic, 'exchanges.ndjson')}; ${traffic} is a folder.`)
  }
  const dir = wanted === undefined ? undefined : parsed.values[wanted]
  const withoutDir = (command === 'check' && types !== undefined && dir === undefined) || (command === 'fingerprint' && dir === undefined)
  const what = command === 'types' ? 'file' : 'dir'
  if (wanted !== undefined && !withoutDir && (dir === undefined || dir === '')) return usageError(io, `${command} needs --${wanted} <${what}>.`)
  const file = command === 'types' ? dir : types
  const fileOption = command === 'types' ? 'out' : 'types'
  if (file !== undefined && isFolder(file)) return usageError(io, `--${fileOption} names the types file (such as ${join(file, 'api-types.ts')}); ${file} is a folder.`)
  // A path through a file: Node's bare ENOTDIR or EEXIST (export), or a stack (types, check --types), after the app was loaded.
  const written = command === 'export' ? dir : file
  const blocking = written === undefined ? undefined : fileInTheWay(written, command === 'export')
  if (blocking !== undefined && blocking === written) return usageError(io, `--out names the folder export writes the documents in (such as openapi); ${blocking} is a file.`)
  if (blocking !== undefined) return usageError(io, `--${command === 'export' ? 'out' : fileOption} ${written as string} is inside ${blocking}, which is a file, not a folder.`)

  let app: FastifyInstance | undefined
  let code = 1
  try {
    if (command === 'retire') {
      const retireRun = { version: parsed.values.version as string, usage: parsed.values.usage, quietDays: countOption(parsed.values['quiet-days'], 1), api: parsed.values.api, verifyOptions }
      code = await retire(appPath, retireRun, io)
    } else if (command === 'replay' || command === 'mutate') {
      app = await loadApp(appPath)
      const minScore = parsed.values['min-score'] === undefined ? undefined : Number(parsed.values['min-score'])
      const handlers = parsed.values.handlers === true ? await appBuilder(appPath) : undefined
      const run: TrafficRun = { command, traffic: parsed.values.traffic, minScore, verifyOptions, api: parsed.values.api, handlers }
      code = await runTrafficCommand(app, run, io)
    } else {
      app = await loadApp(appPath)
      code = await runOnApis(app, { command: command as Exclude<keyof typeof COMMANDS, 'retire' | 'replay' | 'mutate'>, dir, types, verifyOptions, api: parsed.values.api, channel }, io)
    }
  } catch (error) {
    io.err(`fastify-versioner ${command}: ${error instanceof Error ? error.message : describeThrown(error)}`)
  }
  // The whole application (app may be one API's context).
  if (app !== undefined) code = Math.max(code, await closeApp(app, appPath, io))
  return code
}

/** Whether `path` is a folder (a missing path is not, nor one inside a file). */
function isFolder (path: string): boolean {
  return entryOf(path)?.isDirectory() === true
}

/** What is at `path`: undefined when nothing is (ENOENT, or a path inside a file: ENOTDIR) or it cannot be read. */
function entryOf (path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/**
 * The file (not a folder) that writing `path` runs into, if any: the nearest of its folders that exists, when it is a
 * file, or `path` itself when it is to be a folder (`folder`) and is a file. Undefined when that is a folder.
 */
function fileInTheWay (path: string, folder: boolean): string | undefined {
  for (let at = folder ? path : dirname(path); ; at = dirname(at)) {
    const entry = entryOf(at)
    if (entry !== undefined) return entry.isDirectory() ? undefined : at
    if (dirname(at) === at) return undefined
  }
}
