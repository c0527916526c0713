'use strict'

// Runs the benchmarks one after another, each in its own Node process (`node --expose-gc --import tsx <file>`):
// every benchmarks/*.ts except helpers (files starting with `_`), or only those named on the command line.
//   npm run bench
//   npm run bench -- schema-generation

const { spawnSync } = require('node:child_process')
const { readdirSync } = require('node:fs')
const { basename, join } = require('node:path')

const directory = __dirname
const available = readdirSync(directory)
  .filter((file) => file.endsWith('.ts') && !file.startsWith('_') && !file.endsWith('.d.ts'))
  .sort()

const wanted = process.argv.slice(2).map((arg) => basename(arg).replace(/\.ts$/, ''))
const unknown = wanted.filter((name) => !available.includes(`${name}.ts`))
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.map((file) => file.replace(/\.ts$/, '')).join(', ')}`)
  process.exit(2)
}
const selected = wanted.length > 0 ? wanted.map((name) => `${name}.ts`) : available

let failed = 0
for (const file of selected) {
  console.log(`\n=== benchmarks/${file} ===\n`)
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(directory, file)], { stdio: 'inherit' })
  if (result.status !== 0) {
    failed++
    console.error(`benchmarks/${file} failed (${result.error?.message ?? result.signal ?? `exit code ${result.status}`})`)
  }
}
process.exitCode = failed === 0 ? 0 : 1
