/**
 * Timing helpers shared by the benchmarks (a helper, not a benchmark: `benchmarks/run.js` skips files whose
 * name starts with `_`).
 * @module
 */

const gc = (globalThis as { gc?: () => void }).gc

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Runs whose time is discarded (JIT warm-up). */
  warmup: number
  /** Runs whose times are kept. */
  runs: number
}

/**
 * Times `task` with `process.hrtime.bigint()`: `warmup` discarded runs, then `runs` measured ones, each after a
 * garbage collection when Node runs with `--expose-gc` (as `benchmarks/run.js` starts it). `prepare` runs
 * before each run, outside the timed section, and its result is passed to `task`.
 * @returns the measured times, in milliseconds, sorted.
 */
export function measure<T> (prepare: () => T, task: (input: T) => unknown, { warmup, runs }: MeasureOptions): number[] {
  const times: number[] = []
  for (let index = 0; index < warmup + runs; index++) {
    const input = prepare()
    gc?.()
    const start = process.hrtime.bigint()
    task(input)
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6
    if (index >= warmup) times.push(elapsed)
  }
  return times.sort((a, b) => a - b)
}

/** The median of sorted numbers. */
export function median (sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** A number with a fixed count of decimals, for tables. */
export function fixed (value: number, decimals = 2): string {
  return value.toFixed(decimals)
}

/** A markdown table. */
export function markdownTable (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---:')), ...rows.map(line)].join('\n')
}
