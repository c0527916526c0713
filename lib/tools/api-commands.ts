/**
 * The commands `export`, `check`, `types` and `verify` on the versioned APIs of a loaded application: each API in
 * turn (its lines prefixed `[name] `), or the one `--api <name>` picks. With several APIs, each API's documents are in
 * `<dir>/<name>/` and its types in `<folder of file>/<name>/<file name>`, whether or not `--api` picks it; an
 * application with one API (or a module exporting one API's context) writes in `<dir>` itself.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { checkDocuments, type CheckResult } from './check'
import { exportDocuments, fileNameOf, type ChannelOptions } from './export'
import { typesModule } from './types-module'
import { printFingerprint } from './fingerprint'
import { verify, type VerifyFindings, type VerifyOptions } from './verify'
import { selectApis, versionedApis, type VersionedApi } from './versioned-apis'
import { commandArgument, describeThrown } from './terminal-text'

/**
 * Where a command writes (the process's streams, or a test's collectors).
 * @example
 * ```ts
 * const lines: string[] = []
 * const collect: CommandOutput = { out: (line) => lines.push(line), err: (line) => lines.push(`error: ${line}`) }
 * const code = await runCli(['check', 'dist/app.js', '--against', 'openapi'], collect) // lines: what it printed
 * ```
 */
export interface CommandOutput {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

/** One run of a command, as the command line gave it. */
export interface CommandRun {
  readonly command: 'export' | 'check' | 'types' | 'verify' | 'fingerprint'
  /** `--out` of export (a folder) and types (a file), `--against` of check and fingerprint. */
  readonly dir: string | undefined
  /** `--types <file>` of check. */
  readonly types: string | undefined
  readonly verifyOptions: VerifyOptions
  /** `--api <name>`: the one API to work on (its name or prefix). */
  readonly api: string | undefined
  /** `--channel preview`: export, check and types work on the preview versions too. */
  readonly channel?: 'release' | 'preview'
  /** `dir` and `types` as the command line gave them, before an API's folder was added: what the advice names. */
  readonly given?: { readonly dir: string | undefined, readonly types: string | undefined }
}

/** `check --types <file>`: prints whether the file is what `types` writes now (CRLF line endings read as LF, a byte order mark left out); 1 when it is not. */
async function checkTypes (context: FastifyInstance, file: string, io: CommandOutput, run: ChannelOptions & Pick<CommandRun, 'given'>): Promise<number> {
  const expected = await typesModule(context, run)
  // Line endings and a byte order mark aside: a checkout with git's core.autocrlf, or a Windows editor, holds the same types.
  const saved = (await readFile(file, 'utf8').catch(() => undefined))?.replace(/^\uFEFF/, '').replaceAll('\r\n', '\n')
  if (saved === expected) {
    io.out(`check: ${file} is current.`)
    return 0
  }
  io.err(`check: ${file} is ${saved === undefined ? 'missing' : 'stale'}; run fastify-versioner types <app> --out ${commandArgument(run.given?.types ?? file)} and commit it.`)
  return 1
}

/** Prints a check's changes and verdict (`which` versions: `saved`, `remaining`); 1 when it found a break. */
export function printCheck ({ breaks, notes, compared }: CheckResult, which: string, io: CommandOutput): number {
  for (const note of notes) io.out(`note: ${note.text}`)
  for (const found of breaks) io.err(`break: ${found.text}`)
  io.out(breaks.length === 0
    ? `check: no breaking change in ${compared.length} ${which} version(s) (${compared.join(', ')}); ${notes.length} note(s).`
    : `check: ${breaks.length} breaking change(s); ${notes.length} note(s).`)
  return breaks.length === 0 ? 0 : 1
}

/**
 * Prints verify's findings, the parts it could not check, and its verdict (`clean`: what it says when there is
 * neither, before the count of examples); 1 for a finding or a part not verified (decision 0092).
 */
export function printVerify (findings: VerifyFindings, clean: string, io: CommandOutput): number {
  for (const finding of findings) io.err(`finding: ${finding.text}`)
  for (const note of findings.unverified) io.err(`note: ${note.text}`)
  const unverified = findings.unverified.length === 0 ? '' : `; ${findings.unverified.length} part(s) not verified (the notes say why)`
  io.out(findings.length === 0 && unverified === ''
    ? `verify: ${clean}, ${findings.replayed} examples).`
    : `verify: ${findings.length} finding(s)${unverified} (${findings.replayed} examples).`)
  return findings.length === 0 && unverified === '' ? 0 : 1
}

/** Runs the command on one API (`context` is its context); returns the exit code. */
async function runOnApi (context: FastifyInstance, run: CommandRun, io: CommandOutput): Promise<number> {
  if (run.command === 'export') {
    const written = await exportDocuments(context, run.dir as string, run)
    for (const file of written) io.out(`wrote ${file}`)
    for (const file of await savedOfNoVersion(context, run.dir as string, written)) {
      io.out(`note: ${file} kept: it is of no version the application has (a retired version's, or a withdrawn preview's); check reads it until you delete it.`)
    }
    return 0
  }
  if (run.command === 'check') {
    // The saved documents (`--against`) and/or the types file (`--types`).
    const code = run.dir === undefined ? 0 : printCheck(await checkDocuments(context, run.dir, run), 'saved', io)
    return Math.max(code, run.types === undefined ? 0 : await checkTypes(context, run.types, io, run))
  }
  if (run.command === 'fingerprint') return await printFingerprint(context, run.dir, io, run.given?.dir)
  if (run.command === 'types') {
    const file = run.dir as string
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, await typesModule(context, run))
    io.out(`wrote ${file}`)
    return 0
  }
  const versions = context.versioner.versions.versionValues.length
  return printVerify(await verify(context, run.verifyOptions), `every version of every versioned route migrates cleanly (${versions} versions`, io)
}

/**
 * The saved documents (`<version>.json`) in `dir` that `export` did not write (`written`) and that are of no version of
 * the API, preview versions included: a retired version's, which `export` leaves for the team to delete.
 */
async function savedOfNoVersion (context: FastifyInstance, dir: string, written: readonly string[]): Promise<string[]> {
  const known = new Set([...written.map((file) => basename(file)), ...context.versioner.versions.versionValues.map((value) => `${fileNameOf(value)}.json`)])
  return (await readdir(dir)).filter((name) => name.endsWith('.json') && !known.has(name)).sort().map((name) => join(dir, name))
}

/** The types file of one API of several: `<folder of file>/<api>/<file name>`. */
function perApiFile (file: string, api: string): string {
  return join(dirname(file), api, basename(file))
}

/**
 * Runs the command on every versioned API of the readied application (or the one `run.api` names); returns the
 * exit code: the worst of the APIs'. An application holding several APIs keeps each API's files in its own folder
 * (`<dir>/<name>/`), whether the command works on every API or on the one `--api` picks, so that `export` of all
 * and `check --api <name>` of one meet in the same folder.
 * @example
 * ```ts
 * const code = await runOnApis(app, { command: 'export', dir: 'openapi', types: undefined, verifyOptions: {}, api: undefined }, { out: console.log, err: console.error })
 * ```
 */
export async function runOnApis (app: FastifyInstance, run: CommandRun, io: CommandOutput): Promise<number> {
  const apis = selectApis(app, run.api)
  const names = versionedApis(app).map((api) => api.name)
  const several = names.length > 1
  const code = await eachApi(apis, io, async (api, apiIo) => {
    if (!several) return await runOnApi(api.context, run, apiIo)
    const dir = run.dir === undefined ? undefined : run.command === 'types' ? perApiFile(run.dir, api.name) : join(run.dir, api.name)
    const types = run.types === undefined ? undefined : perApiFile(run.types, api.name)
    const missing = run.command === 'check' && run.dir !== undefined ? await missingFolder(run.dir, api.name, names) : undefined
    const added = missing === 'added'
    if (added) apiIo.out(`note: new API: ${dir as string} does not exist (an API added since the documents were saved); save its documents with fastify-versioner export <app> --out ${commandArgument(run.dir as string)} --api ${api.name}.`)
    if (missing === 'one API') apiIo.err(`${run.dir as string} holds saved documents of its own, as export writes them for an application with one API; with several, each API's are in ${join(run.dir as string, '<name>')}: move them into the folder of the API they are of.`)
    return await runOnApi(api.context, { ...run, dir: added ? undefined : dir, types, given: { dir: run.dir, types: run.types } }, apiIo)
  })
  if ((run.command !== 'check' && run.command !== 'fingerprint') || !several || run.api !== undefined || run.dir === undefined) return code
  return Math.max(code, await removedApis(run.command, run.dir, apis.map((api) => api.name), io))
}

/**
 * `check` of one API of several whose folder `<dir>/<name>/` does not exist: `added` when another API's folder holds
 * saved documents, an API added since they were saved (decision 0280), which `check` notes; `one API` when `dir` holds
 * saved documents itself (those of the application when it had one API, which must move into that API's folder);
 * `undefined` when the folder exists, or no API's folder holds saved documents (a `dir` misspelt, or never exported).
 * Unless `added`, reading the folder fails, as before.
 */
async function missingFolder (dir: string, name: string, names: readonly string[]): Promise<'added' | 'one API' | undefined> {
  const saved = async (folder: string): Promise<boolean> => await readdir(folder).then((files) => files.some((file) => file.endsWith('.json')), () => false)
  if (await stat(join(dir, name)).then(() => true, (error: NodeJS.ErrnoException) => error.code !== 'ENOENT')) return undefined
  if (await saved(dir)) return 'one API'
  for (const other of names.filter((other) => other !== name)) if (await saved(join(dir, other))) return 'added'
  return undefined
}

/**
 * `check` and `fingerprint --against` of every API: a folder of `dir` holding saved documents (`<version>.json`) that
 * no API of the application is named by is an API removed (or renamed), which breaks its clients (a break; documents
 * that are not what the application serves); its documents were compared with nothing.
 */
async function removedApis (command: 'check' | 'fingerprint', dir: string, names: readonly string[], io: CommandOutput): Promise<number> {
  const folders = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory() && !names.includes(entry.name))
  let code = 0
  for (const folder of folders) {
    const saved = (await readdir(join(dir, folder.name)).catch(() => [])).filter((name) => name.endsWith('.json'))
    if (saved.length === 0) continue
    const [path, none] = [join(dir, folder.name), `the application has no versioned API of that name (its APIs: ${names.join(', ')})`]
    io.err(command === 'check'
      ? `break: API '${folder.name}' removed: ${path} holds its saved documents (${saved.length}), and ${none}.`
      : `fingerprint: ${path} holds the saved documents (${saved.length}) of API '${folder.name}', and ${none}; run fastify-versioner check <app> --against ${commandArgument(dir)} to see the differences.`)
    code = 1
  }
  return code
}

/**
 * Runs `each` on every API in turn, its lines prefixed `[name] ` when there are several; returns the worst exit code.
 * With several, what one API's run throws is printed as its line (exit code 1), and the next API is run all the same.
 */
export async function eachApi (apis: readonly VersionedApi[], io: CommandOutput, each: (api: VersionedApi, io: CommandOutput) => Promise<number>): Promise<number> {
  let code = 0
  for (const api of apis) {
    if (apis.length === 1) return await each(api, io)
    const label = (line: string): string => `[${api.name}] ${line}`
    code = Math.max(code, await each(api, { out: (line) => io.out(label(line)), err: (line) => io.err(label(line)) }).catch((error: unknown) => {
      io.err(label(error instanceof Error ? error.message : describeThrown(error)))
      return 1
    }))
  }
  return code
}
