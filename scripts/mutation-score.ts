// The mutation score of the proof, outside the tests: `npm run mutation-score` applies every mistake of the corpus
// (test/fixtures/mutations/) to a copy of its example app, runs check and verify on it, and prints the score, the
// score by kind, and every mistake missed (docs/decisions/0074-a-corpus-of-realistic-mistakes.md).
//   npm run mutation-score                       # the score and the misses
//   npm run mutation-score -- --all              # also what caught each mistake, and how long it took
//   npm run mutation-score -- --examples 200     # verify's examples per route, version, direction and part (default 20)
//   npm run mutation-score -- --both             # run verify even where check already caught the mistake
//   npm run mutation-score -- --typecheck        # then type-check every mutant with tsc (a realistic mistake compiles)
//   npm run mutation-score -- --every 5          # only every fifth mistake (the first, the sixth…): a quick sample to profile or time
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { corpus } from '../test/fixtures/mutations'
import { measureCorpus, measureOne, mutantsFolder, mutantTypeErrors, scoreReport, unwitnessed, type Verdict } from '../test/helpers/mutation-harness'

async function main (): Promise<void> {
  const { values } = parseArgs({ options: { all: { type: 'boolean' }, both: { type: 'boolean' }, examples: { type: 'string' }, every: { type: 'string' }, typecheck: { type: 'boolean' } } })
  const examples = Number(values.examples ?? 20)
  if (!Number.isInteger(examples) || examples < 1) throw new Error(`--examples must be a whole number of 1 or more; got '${values.examples}'`)
  const every = Number(values.every ?? 1)
  if (!Number.isInteger(every) || every < 1) throw new Error(`--every must be a whole number of 1 or more; got '${values.every}'`)
  const options = { base: mutantsFolder('mutation-score'), examples, both: values.both, handlers: true, traffic: true }
  rmSync(options.base, { recursive: true, force: true })
  const started = performance.now()
  for (const app of ['users', 'billing'] as const) {
    const correct = await measureOne(app, undefined, { ...options, both: true })
    console.log(`correct ${app} app: ${correct.breaks} break(s), ${correct.findings} finding(s)${correct.detail === '' ? '' : `: ${correct.detail}`}`)
  }
  const show = (verdict: Verdict): void => {
    if (values.all === true) console.log(`${verdict.caughtBy ?? 'MISSED'.padEnd(8)} ${String(verdict.milliseconds).padStart(5)} ms  ${verdict.mistake?.id}  ${verdict.detail}`)
  }
  const verdicts = await measureCorpus(corpus.filter((_, index) => index % every === 0), { ...options, witness: true, onVerdict: show })
  for (const line of scoreReport(verdicts)) console.log(line)
  const silent = await unwitnessed(verdicts, options.base)
  if (silent.length > 0) {
    console.log(`corpus defect: the witness of ${silent.join(', ')} shows no difference from the correct app`)
    process.exitCode = 1
  }
  console.log(`(${Math.round(performance.now() - started)} ms, verify with ${examples} examples)`)
  if (values.typecheck === true) await typecheck(options.base)
}

/** Type-checks every mutant written to `base`: a mistake a team commits compiles. */
async function typecheck (base: string): Promise<void> {
  const errors = await mutantTypeErrors(base)
  console.log(errors === undefined ? 'every mutant type-checks' : `tsc found errors in the mutants:\n${errors}`)
  if (errors !== undefined) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
