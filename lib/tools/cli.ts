/**
 * Stage `lib/tools/`: the `fastify-versioner` command and its API, on a readied application.
 *
 * The `fastify-versioner` command: `export`, `check`, `types` and `verify` on an application module, on each of
 * its versioned APIs in turn (lines prefixed `[name] `, documents in `<dir>/<name>/`, types in `<folder of
 * file>/<name>/<file name>`), or the one `--api <name>` picks (written as for an application with one API). Exit
 * codes: 0 when all is well, 1 when `check` finds a break or `verify` a finding (or the application cannot be
 * used), 2 for a usage error (with the usage text).
 * @module
 */
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { checkDocuments } from './check'
import { exportDocuments } from './export'
import { loadApp } from './load-app'
import { typesModule } from './types-module'
import type { VerifyOptions } from './verify'
import { rootOf, selectApis } from './versioned-apis'

/** The usage text the command prints on a usage error. */
export const USAGE = `Usage:
  fastify-versioner export <app> --out <dir> [--api <name>]
                                                   write <dir>/<version>.json for every version (and unversioned.json)
  fastify-versioner check <app> --against <dir> [--api <name>]
                                                   exit 1 if a version saved in <dir> changed in a way that breaks its clients
  fastify-versioner check <app> --types <file> [--api <name>]
                                                   exit 1 if <file> is not what types writes now (with or without --against)
  fastify-versioner types <app> --out <file> [--api <name>]
                                                   write the TypeScript types of every version to <file>
  fastify-versioner verify <app> [--examples N] [--seed N] [--api <name>]
                                                   exit 1 if a version's generated examples do not migrate cleanly
                                                   (N examples per route, version and direction, default 200; seed 1)

<app> is a module whose default export (or export named build) is a function returning a Fastify instance with
fastify-versioner registered, or that instance. TypeScript modules need tsx installed in the project.
An application with several versioned APIs: each command handles each API (export and check use <dir>/<name>/);
--api <name> picks one (its apiName option, or its prefix: /partner is named partner).`

/** Where the command writes (the process's streams, or a test's collectors). */
interface CommandOutput {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

const OPTIONS = {
  out: { type: 'string' },
  against: { type: 'string' },
  types: { type: 'string' },
  examples: { type: 'string' },
  seed: { type: 'string' },
  api: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
} as const

/** A whole number option of `verify` (`undefined` when not given); NaN when it is not one. */
function countOption (value: string | undefined, minimum: number): number | undefined {
  if (value === undefined) return undefined
  return /^\d+$/.test(value) && Number(value) >= minimum ? Number(value) : Number.NaN
}

const COMMANDS = {
  export: { option: 'out' },
  check: { option: 'against' },
  types: { option: 'out' },
  verify: { option: undefined }
} as const

function usageError (io: CommandOutput, message: string): number {
  io.err(`fastify-versioner: ${message}`)
  io.err(USAGE)
  return 2
}

/** One run of a command, as the command line gave it. */
interface CommandRun {
  readonly command: 'export' | 'check' | 'types' | 'verify'
  /** `--out` of export (a folder) and types (a file), `--against` of check. */
  readonly dir: string | undefined
  /** `--types <file>` of check. */
  readonly types: string | undefined
  readonly verifyOptions: VerifyOptions
  /** `--api <name>`: the one API to work on (its name or prefix). */
  readonly api: string | undefined
}

/** `check --types <file>`: whether the file is what `types` writes now; prints the verdict. */
async function checkTypes (context: FastifyInstance, file: string, io: CommandOutput): Promise<boolean> {
  const expected = await typesModule(context)
  const saved = await readFile(file, 'utf8').catch(() => undefined)
  if (saved === expected) {
    io.out(`check: ${file} is current.`)
    return true
  }
  io.err(`check: ${file} is ${saved === undefined ? 'missing' : 'stale'}; run fastify-versioner types <app> --out ${file} and commit it.`)
  return false
}

/** `check`: the saved documents (`--against`) and/or the types file (`--types`); the exit code. */
async function check (context: FastifyInstance, run: CommandRun, io: CommandOutput): Promise<number> {
  let code = 0
  if (run.dir !== undefined) {
    const { breaks, notes, compared } = await checkDocuments(context, run.dir)
    for (const note of notes) io.out(`note: ${note.text}`)
    for (const found of breaks) io.err(`break: ${found.text}`)
    io.out(breaks.length === 0
      ? `check: no breaking change in ${compared.length} saved version(s) (${compared.join(', ')}); ${notes.length} note(s).`
      : `check: ${breaks.length} breaking change(s); ${notes.length} note(s).`)
    if (breaks.length > 0) code = 1
  }
  if (run.types !== undefined && !await checkTypes(context, run.types, io)) code = 1
  return code
}

/** Runs the command on one API (`context` is its context); returns the exit code. */
async function runOnApi (context: FastifyInstance, run: CommandRun, io: CommandOutput): Promise<number> {
  if (run.command === 'export') {
    for (const file of await exportDocuments(context, run.dir as string)) io.out(`wrote ${file}`)
    return 0
  }
  if (run.command === 'check') return await check(context, run, io)
  if (run.command === 'types') {
    const file = run.dir as string
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, await typesModule(context))
    io.out(`wrote ${file}`)
    return 0
  }
  const findings = await context.versioner.verify(run.verifyOptions)
  for (const finding of findings) io.err(`finding: ${finding.text}`)
  io.out(findings.length === 0
    ? `verify: every version of every versioned route migrates cleanly (${context.versioner.versions.versionValues.length} versions, ${findings.replayed} examples).`
    : `verify: ${findings.length} finding(s) (${findings.replayed} examples).`)
  return findings.length === 0 ? 0 : 1
}

/** The types file of one API of several: `<folder of file>/<api>/<file name>`. */
function perApiFile (file: string, api: string): string {
  return join(dirname(file), api, basename(file))
}

/** Runs the command on every versioned API of the readied application (or the one `run.api` names); the worst exit code. */
async function runOnApis (app: FastifyInstance, run: CommandRun, io: CommandOutput): Promise<number> {
  const apis = selectApis(app, run.api)
  if (apis.length === 1) return await runOnApi(apis[0].context, run, io)
  let code = 0
  for (const api of apis) {
    const label = (line: string): string => `[${api.name}] ${line}`
    const dir = run.dir === undefined ? undefined : run.command === 'types' ? perApiFile(run.dir, api.name) : join(run.dir, api.name)
    const types = run.types === undefined ? undefined : perApiFile(run.types, api.name)
    const result = await runOnApi(api.context, { ...run, dir, types }, { out: (line) => io.out(label(line)), err: (line) => io.err(label(line)) })
    code = Math.max(code, result)
  }
  return code
}

/**
 * Runs the command with its arguments (without `node` and the script); returns the exit code.
 * @example
 * ```ts
 * const code = await runCli(['check', 'dist/app.js', '--against', 'openapi'], { out: console.log, err: console.error })
 * ```
 */
export async function runCli (args: readonly string[], io: CommandOutput): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS, allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true })
  } catch (error) {
    return usageError(io, (error as Error).message)
  }
  if (parsed.values.help === true) {
    io.out(USAGE)
    return 0
  }
  const [command, appPath, ...extra] = parsed.positionals
  if (command === undefined) return usageError(io, 'name a command: export, check, types or verify.')
  if (!Object.hasOwn(COMMANDS, command)) return usageError(io, `unknown command '${command}'; the commands are export, check, types and verify.`)
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
    if (parsed.values[option] !== undefined && command !== 'verify') return usageError(io, `--${option} applies to verify only.`)
  }
  const verifyOptions = { examples: countOption(parsed.values.examples, 1), seed: countOption(parsed.values.seed, 0) }
  if (Number.isNaN(verifyOptions.examples)) return usageError(io, `--examples must be a whole number of 1 or more; got '${parsed.values.examples as string}'.`)
  if (Number.isNaN(verifyOptions.seed)) return usageError(io, `--seed must be a whole number; got '${parsed.values.seed as string}'.`)
  const dir = wanted === undefined ? undefined : parsed.values[wanted]
  const checksTypesOnly = command === 'check' && types !== undefined && dir === undefined
  const what = command === 'types' ? 'file' : 'dir'
  if (wanted !== undefined && !checksTypesOnly && (dir === undefined || dir === '')) return usageError(io, `${command} needs --${wanted} <${what}>.`)

  let app: FastifyInstance
  try {
    app = await loadApp(appPath)
  } catch (error) {
    io.err(`fastify-versioner ${command}: ${(error as Error)?.message ?? String(error)}`)
    return 1
  }
  try {
    return await runOnApis(app, { command: command as keyof typeof COMMANDS, dir, types, verifyOptions, api: parsed.values.api }, io)
  } catch (error) {
    io.err(`fastify-versioner ${command}: ${(error as Error)?.message ?? String(error)}`)
    return 1
  } finally {
    // The root: `app` may be one API's context.
    await rootOf(app).close()
  }
}
