/** The `fastify-versioner` command run in the test's process, and scratch folders for what it writes. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { runCli } from '../../tools'

/** What a run of the command printed, and its exit code. */
export interface Run { code: number, stdout: string, stderr: string }

/** The command in this process (the same code as the bin, without the process around it). */
export async function inProcess (args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, { out: (line) => { stdout += `${line}\n` }, err: (line) => { stderr += `${line}\n` } })
  return { code, stdout, stderr }
}

/** A new folder (under test/.tmp unless `base` names another), removed when the test ends. */
export async function scratch (t: { teardown: (fn: () => unknown) => void }, base = join(resolve(__dirname, '..'), '.tmp')): Promise<string> {
  await mkdir(base, { recursive: true })
  const dir = await mkdtemp(join(base, 'cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}
