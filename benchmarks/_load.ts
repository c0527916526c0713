/**
 * Load-generation helpers for the HTTP benchmarks (a helper: `benchmarks/run.js` skips files whose name starts
 * with `_`): CPU pinning with `taskset`, server processes, server CPU time from `/proc/<pid>/stat`, and
 * autocannon runs (in this process, which is pinned to another core than the servers when possible).
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

/** The part of autocannon's result the benchmarks read. */
export interface LoadResult {
  requests: { total: number }
  '2xx': number
  /** Seconds. */
  duration: number
  errors: number
  timeouts: number
  mismatches: number
  non2xx: number
  resets: number
}

interface LoadOptions {
  url: string
  method: 'POST'
  connections: number
  pipelining: number
  duration: number
  headers: Record<string, string>
  body: string
  expectBody: string
}

type Autocannon = (options: LoadOptions) => Promise<LoadResult>

// autocannon ships no types; its promise API is used as declared above.
const autocannon = createRequire(__filename)('autocannon') as Autocannon

/** The CPUs this process may run on (from `taskset -p`), or undefined when taskset is not usable. */
export function allowedCpus (): number[] | undefined {
  try {
    const output = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' })
    const list = output.split(':').pop()?.trim() ?? ''
    const cpus: number[] = []
    for (const part of list.split(',')) {
      const [from, to] = part.split('-').map(Number)
      if (Number.isNaN(from)) continue
      for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.push(cpu)
    }
    return cpus.length > 0 ? cpus : undefined
  } catch {
    return undefined
  }
}

/** Pins every thread of this process to `cpu`. */
export function pinSelf (cpu: number): void {
  execFileSync('taskset', ['-a', '-c', '-p', String(cpu), String(process.pid)], { stdio: 'ignore' })
}

/** Clock ticks per second of `/proc/<pid>/stat` times. */
export const CLOCK_TICKS = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/** User plus system CPU time of a process so far, in microseconds (`utime + stime` of `/proc/<pid>/stat`). */
export function cpuMicros (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) may contain spaces; fields after it start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) / CLOCK_TICKS) * 1e6
}

/** A server process and the port it listens on. */
export interface ServerProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  stop: () => Promise<void>
}

/**
 * Starts `benchmarks/_server.ts <kind>` in its own Node process, pinned to `cpu` with taskset when given, and
 * waits for its `listening <port>` line. Extra Node flags (e.g. `--cpu-prof`) come from `nodeFlags`.
 */
export function startServer (kind: string, cpu: number | undefined, nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  const node = [process.execPath, ...nodeFlags, '--import', 'tsx', join(__dirname, '_server.ts'), kind]
  const [command, ...args] = cpu === undefined ? node : ['taskset', '-c', String(cpu), ...node]
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => fail(new Error(`server '${kind}' did not start within 30 s; output: ${output}`)), 30_000)
    const fail = (error: Error): void => {
      clearTimeout(timer)
      child.kill()
      reject(error)
    }
    child.once('error', fail)
    child.once('exit', (code, signal) => fail(new Error(`server '${kind}' exited before listening (${signal ?? `code ${code}`}); output: ${output}`)))
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', function onData (chunk: string) {
      output += chunk
      const match = /listening (\d+)/.exec(output)
      if (match === null) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.removeAllListeners('exit')
      child.stdout?.resume()
      resolve({
        child,
        pid: child.pid as number,
        port: Number(match[1]),
        stop: () => new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve()
            return
          }
          child.once('exit', () => resolve())
          child.stdin?.end()
          setTimeout(() => child.kill('SIGKILL'), 5_000).unref()
        })
      })
    })
  })
}

/** What one load run sends. */
export interface Exchange {
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
  /** The exact response body every request must get (others count as mismatches). */
  readonly expectBody: string
}

/** One measured load run against a server process. */
export interface Measurement {
  readonly requests: number
  /** Requests per second. */
  readonly throughput: number
  /** Server CPU time per request, in microseconds. */
  readonly cpuPerRequest: number
  /** Server CPU time over wall time (1 = one core fully busy). */
  readonly busy: number
  /** CPU time of this process (autocannon) over wall time: near 1, the load generator limits the throughput. */
  readonly loadBusy: number
}

/**
 * Runs autocannon for `seconds` and reads the server's CPU time around it. Throws when any request failed,
 * got a non-2xx status, or a body other than the expected one.
 */
export async function measureLoad (server: ServerProcess, exchange: Exchange, seconds: number, connections: number): Promise<Measurement> {
  const cpuBefore = cpuMicros(server.pid)
  const loadBefore = process.cpuUsage()
  const wallBefore = process.hrtime.bigint()
  const result = await autocannon({
    url: exchange.url,
    method: 'POST',
    connections,
    pipelining: 1,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...exchange.headers },
    body: exchange.body,
    expectBody: exchange.expectBody
  })
  const wall = Number(process.hrtime.bigint() - wallBefore) / 1e3
  const cpu = cpuMicros(server.pid) - cpuBefore
  const load = process.cpuUsage(loadBefore)
  const requests = result.requests.total
  const bad = result.errors + result.timeouts + result.mismatches + result.non2xx + result.resets
  if (!(requests > 0) || !(bad === 0) || result['2xx'] !== requests) {
    throw new Error(`load run against ${exchange.url} ${JSON.stringify(exchange.headers)} went wrong: ${requests} requests, ${result['2xx']} 2xx, ` +
      `${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx, ${result.mismatches} unexpected bodies, ${result.resets} resets`)
  }
  return { requests, throughput: requests / result.duration, cpuPerRequest: cpu / requests, busy: cpu / wall, loadBusy: (load.user + load.system) / wall }
}
