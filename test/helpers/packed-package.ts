/**
 * The published package, packed once and shared by the tests that need it (test/package.test.ts,
 * test/decorators-toolchains.test.ts). It is packed exactly as a publisher packs it: `npm pack` in a copy of the
 * repository as a fresh clone has it (tracked and untracked-but-not-ignored files, no dist/; the repository's
 * node_modules linked in), with no build step before: `prepare` must build.
 *
 * The tarball is kept in test/.tmp/packed/<key>/, where the key is a hash of every copied file outside test/ (path
 * and content), Node's version and TypeScript's: the tests of one run, and of later runs while nothing the package
 * is built from changed, pack once (test/ is not built: tsconfig.build.json and package.json's `files` leave it
 * out). tap runs two test files at a time: the first to ask packs, holding a lock folder; the other waits for it
 * (docs/benchmarks.md, "Test loop").
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'

const ROOT = resolve(__dirname, '..', '..')
const PACKED = join(ROOT, 'test', '.tmp', 'packed')
/** How long a test waits for another test's pack before giving up. */
const WAIT_LIMIT = 600_000

/**
 * The environment of the pack and of the consumers: npm's own variables (set when this runs under `npm test`) are
 * dropped, so npm pack runs as in a publisher's shell. Child processes are still tracked by tap's processinfo, but
 * must not count as coverage of lib/: they run the packed dist/ (whose source maps point at lib/), not the unit
 * under test.
 */
export const childEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  NO_COLOR: '1',
  _TAPJS_PROCESSINFO_COVERAGE_: '0'
}

/** What a child process printed, and its exit code. */
export interface Run { code: number, stdout: string, stderr: string }

/** Runs `file` with `args` in `cwd`, in {@link childEnv} unless `env` is given. */
export function run (file: string, args: string[], cwd: string, options: { timeout?: number, env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: options.timeout ?? 120_000, maxBuffer: 16 * 1024 * 1024, env: options.env ?? childEnv }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      resolve({ code, stdout, stderr: error !== null && typeof error.code !== 'number' ? `${stderr}\n${error.message}` : stderr })
    })
  })
}

/** The packed package. */
export interface Packed {
  /** The tarball `npm pack` wrote (its name as npm gives it). */
  readonly tarball: string
  /** Whether the copy had a dist/ before `npm pack` (it must not: `prepare` builds). */
  readonly distBeforePack: boolean
}

/** The files a fresh clone has: tracked and untracked-but-not-ignored (no dist/, no node_modules). */
async function cloneFiles (): Promise<string[]> {
  const listed = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT)
  if (listed.code !== 0) throw new Error(`git ls-files failed:\n${listed.stderr}`)
  return listed.stdout.split('\0').filter((name) => name !== '' && existsSync(join(ROOT, name))).sort()
}

/** The key of a pack: what it is built from (the clone's files outside test/, Node's and TypeScript's versions). */
async function keyOf (files: readonly string[]): Promise<string> {
  const hash = createHash('sha256').update(process.version).update('\0')
  hash.update(await readFile(join(ROOT, 'node_modules', 'typescript', 'package.json')))
  for (const file of files.filter((name) => !name.startsWith('test/'))) {
    hash.update('\0').update(file).update('\0').update(await readFile(join(ROOT, file)))
  }
  return hash.digest('hex').slice(0, 16)
}

/** Copies the clone's files to `target` and links the repository's node_modules in (the build needs TypeScript). */
async function cleanCopy (files: readonly string[], target: string): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(target, file)), { recursive: true })
    await copyFile(join(ROOT, file), join(target, file))
  }
  await symlink(join(ROOT, 'node_modules'), join(target, 'node_modules'), 'dir')
}

/** Packs a clean copy into `dir` (which must not exist): the tarball and packed.json, written last. */
async function pack (files: readonly string[], dir: string): Promise<void> {
  const building = `${dir}.${process.pid}.building`
  await rm(building, { recursive: true, force: true })
  const clone = join(building, 'clone')
  await cleanCopy(files, clone)
  const distBeforePack = existsSync(join(clone, 'dist'))
  const packed = await run('npm', ['pack', '--json', '--pack-destination', building], clone, { timeout: 300_000 })
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`)
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>
  await rm(clone, { recursive: true, force: true })
  await writeFile(join(building, 'packed.json'), JSON.stringify({ filename: info.filename, distBeforePack }))
  await rename(building, dir)
}

/** Whether the process that took a lock is gone (it stopped before releasing it). */
async function staleLock (lock: string): Promise<boolean> {
  const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => 'NaN'))
  if (!Number.isInteger(pid)) return false
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

/** Removes the packs of other keys (older sources), unless another test is packing. */
async function pruneOthers (key: string): Promise<void> {
  for (const name of await readdir(PACKED)) {
    const of = name.split('.')[0]
    if (of === key || existsSync(join(PACKED, `${of}.lock`))) continue
    await rm(join(PACKED, name), { recursive: true, force: true })
  }
}

/**
 * The package packed from the repository as it is now: packed by this call, or by an earlier one (of this run or of
 * a run since which no file changed), or by another test file running at the same time, which this one waits for.
 */
export async function packedPackage (): Promise<Packed> {
  const files = await cloneFiles()
  const key = await keyOf(files)
  const dir = join(PACKED, key)
  const lock = `${dir}.lock`
  await mkdir(PACKED, { recursive: true })
  const started = Date.now()
  while (!existsSync(join(dir, 'packed.json'))) {
    if (Date.now() - started > WAIT_LIMIT) throw new Error(`no pack in ${dir} after ${WAIT_LIMIT / 1000} s (is ${lock} left from a stopped run?)`)
    try {
      await mkdir(lock)
    } catch {
      if (await staleLock(lock)) await rm(lock, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 250))
      continue
    }
    try {
      await writeFile(join(lock, 'pid'), String(process.pid))
      if (!existsSync(join(dir, 'packed.json'))) {
        await rm(dir, { recursive: true, force: true })
        await pack(files, dir)
        await pruneOthers(key)
      }
    } finally {
      await rm(lock, { recursive: true, force: true })
    }
  }
  const { filename, distBeforePack } = JSON.parse(await readFile(join(dir, 'packed.json'), 'utf8')) as { filename: string, distBeforePack: boolean }
  return { tarball: join(dir, filename), distBeforePack }
}

/**
 * Installs the packed package into `consumer` as npm would (extracted to `node_modules/fastify-versioner`), with
 * a package.json of its own. The consumer folder must sit under test/.tmp, so that Node and TypeScript find the
 * package's dependencies by walking up to the repository's node_modules: no registry, no network.
 */
export async function installPacked (packed: Packed, consumer: string): Promise<string> {
  const installed = join(consumer, 'node_modules', 'fastify-versioner')
  await mkdir(installed, { recursive: true })
  const extracted = await run('tar', ['-xzf', packed.tarball, '-C', installed, '--strip-components=1'], consumer)
  if (extracted.code !== 0) throw new Error(`tar failed:\n${extracted.stderr}`)
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }, null, 2))
  return installed
}
