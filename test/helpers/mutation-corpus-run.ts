/**
 * The corpus part of test/mutation-score.test.ts, in a process of its own: `node --import
 * ./scripts/typescript-loader.mjs test/helpers/mutation-corpus-run.ts <base> <examples> <out.json>` measures every
 * mistake of the corpus (witnesses, the example's handler tests and its recorded traffic included), then finds the
 * mistakes whose witness shows nothing, and writes both to `out.json`. The test runs it outside V8 coverage: about
 * 150 apps built, checked and verified cost a third more CPU under coverage, and cover nothing the tools' own tests
 * do not (docs/benchmarks.md, the test loop). The test judges what it writes with the same assertions.
 */
import { writeFileSync } from 'node:fs'
import { corpus } from '../fixtures/mutations'
import { measureCorpus, unwitnessed } from './mutation-harness'

async function main (): Promise<void> {
  const [base, examples, out] = process.argv.slice(2)
  const verdicts = await measureCorpus(corpus, { base, examples: Number(examples), witness: true, handlers: true, traffic: true })
  const silent = await unwitnessed(verdicts, base)
  const measured = verdicts.map(({ mistake, caughtBy, detail, breaks, findings, milliseconds }) => ({ id: mistake?.id, caughtBy, detail, breaks, findings, milliseconds }))
  writeFileSync(out, JSON.stringify({ verdicts: measured, silent }))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
