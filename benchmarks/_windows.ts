/**
 * The protocol between a benchmark and its measuring processes (compare-builds, field-deprecations): the child
 * prints `ready`, then answers each `cpu <n>` line on stdin with `cpu <µs a request>` for n requests, until another
 * line (or the end of stdin). CPU is measured in windows the parent interleaves across its children, so that the
 * machine's load weighs on all alike.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { createInterface, type Interface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'

/** A measuring process, seen from the parent. */
export interface MeasuringChild {
  readonly process: ChildProcessByStdio<Writable, Readable, null>
  readonly lines: AsyncIterator<string>
  readonly reader: Interface
}

/** Starts `node --expose-gc … --import tsx <file> ...args` as a measuring process. */
export function startMeasuringChild (file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): MeasuringChild {
  const nodeArgs = ['--expose-gc', '--max-semi-space-size=256', '--min-semi-space-size=256', '--import', 'tsx', file, ...args]
  const child = spawn(process.execPath, nodeArgs, { stdio: ['pipe', 'pipe', 'inherit'], env })
  const reader = createInterface({ input: child.stdout })
  return { process: child, reader, lines: reader[Symbol.asyncIterator]() }
}

/** The next line a measuring process prints. */
export async function nextLine (child: MeasuringChild): Promise<string> {
  const { value, done } = await child.lines.next()
  if (done === true) throw new Error('a measuring process ended early')
  return value
}

/** In the child: prints `ready`, then answers `cpu <n>` windows with `send(n)` until another line comes. */
export async function answerCpuWindows (send: (count: number) => Promise<unknown>): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  process.stdout.write('ready\n')
  for await (const line of lines) {
    const [command, countArg] = line.split(' ')
    if (command !== 'cpu') break
    const before = process.cpuUsage()
    await send(Number(countArg))
    const used = process.cpuUsage(before)
    process.stdout.write(`cpu ${(used.user + used.system) / Number(countArg)}\n`)
  }
  lines.close()
}
