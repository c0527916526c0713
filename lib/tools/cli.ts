/**
 * Stage `lib/tools/`: the `fastify-versioner` command and its API, on a readied application.
 *
 * The `fastify-versioner` command: `export`, `check`, `types` and `verify` on an application module. Exit codes: 0 when
 * all is well, 1 when `check` finds a break or `verify` a finding (or the application cannot be used), 2 for a
 * usage error (with the usage text).
 * @module
 */
import { parseArgs } from 'node:util'
import { readFile, writeFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { checkDocuments } from './check'
import { exportDocuments } from './export'
import { loadApp } from './load-app'
import { typesModule } from './types-module'

/** The usage text the command prints on a usage error. */
export const USAGE = `Usage:
  fastify-versioner export <app> --out <dir>       write <dir>/<version>.json for every version (and unversioned.json)
  fastify-versioner check <app> --against <dir>    exit 1 if a version saved in <dir> changed in a way that breaks its clients
  fastify-versioner check <app> --types <file>     exit 1 if <file> is not what types writes now (with or without --against)
  fastify-versioner types <app> --out <file>       write the TypeScript types of every version to <file>
  fastify-versioner verify <app> [--examples N] [--seed N]
                                                   exit 1 if a version's generated examples do not migrate cleanly
                                                   (N examples per route, version and direction, default 200; seed 1)

<app> is a module whose default export (or export named build) is a function returning a Fastify instance with
fastify-versioner registered, or that instance. TypeScript modules need tsx installed in the project.`

/** Where the command writes (the process's streams, or a test's collectors). */
interface CliOutput {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

const OPTIONS = {
  out: { type: 'string' },
  against: { type: 'string' },
  types: { type: 'string' },
  examples: { type: 'string' },
  seed: { type: 'string' },
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

/** `check --types <file>`: the lines to print, and whether the file is what `types` writes now. */
async function checkTypes (app: FastifyInstance, file: string): Promise<{ current: boolean, line: string }> {
  const expected = await typesModule(app)
  let saved: string | undefined
  try {
    saved = await readFile(file, 'utf8')
  } catch {}
  if (saved === expected) return { current: true, line: `check: ${file} is current.` }
  return {
    current: false,
    line: `check: ${file} is ${saved === undefined ? 'missing' : 'stale'}; run fastify-versioner types <app> --out ${file} and commit it.`
  }
}

/** `check`: the saved documents (`--against`) and/or the types file (`--types`); the exit code. */
async function runCheck (app: FastifyInstance, against: string | undefined, types: string | undefined, io: CliOutput): Promise<number> {
  let code = 0
  if (against !== undefined) {
    const { breaks, notes, compared } = await checkDocuments(app, against)
    for (const note of notes) io.out(`note: ${note.text}`)
    for (const found of breaks) io.err(`break: ${found.text}`)
    io.out(breaks.length === 0
      ? `check: no breaking change in ${compared.length} saved version(s) (${compared.join(', ')}); ${notes.length} note(s).`
      : `check: ${breaks.length} breaking change(s); ${notes.length} note(s).`)
    if (breaks.length > 0) code = 1
  }
  if (types !== undefined) {
    const { current, line } = await checkTypes(app, types)
    if (current) io.out(line)
    else io.err(line)
    if (!current) code = 1
  }
  return code
}

function usageError (io: CliOutput, message: string): number {
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
export async function runCli (args: readonly string[], io: CliOutput): Promise<number> {
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
    if (command === 'export') {
      const files = await exportDocuments(app, dir as string)
      for (const file of files) io.out(`wrote ${file}`)
      return 0
    }
    if (command === 'check') return await runCheck(app, dir, types, io)
    if (command === 'types') {
      await writeFile(dir as string, await typesModule(app))
      io.out(`wrote ${dir as string}`)
      return 0
    }
    const findings = await app.versioner.verify(verifyOptions)
    for (const finding of findings) io.err(`finding: ${finding.text}`)
    io.out(findings.length === 0
      ? `verify: every version of every versioned route migrates cleanly (${app.versioner.versions.versionValues.length} versions, ${findings.replayed} examples).`
      : `verify: ${findings.length} finding(s) (${findings.replayed} examples).`)
    return findings.length === 0 ? 0 : 1
  } catch (error) {
    io.err(`fastify-versioner ${command}: ${(error as Error)?.message ?? String(error)}`)
    return 1
  } finally {
    await app.close()
  }
}
