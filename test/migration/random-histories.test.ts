/**
 * Random version-change histories (test/helpers/random-histories.ts): for each seed, a history of changes dealt to
 * versions, checked in every version (requests built from the version's own document, the echo, webhooks, query
 * string and header as the handler sees them, 404 bodies). A failing seed prints its history: shrink it by hand to a
 * plain test where its neighbours live.
 *
 * Longer runs (not in the suite): RANDOM_HISTORIES_RUNS=500 for more seeds, RANDOM_HISTORIES_FROM=1000 to start
 * elsewhere, RANDOM_HISTORIES_VERIFY=1 to also require `verify` to find nothing (about ten times slower):
 * `RANDOM_HISTORIES_RUNS=300 npx tap test/migration/random-histories.test.ts --disable-coverage --timeout=3600`.
 */
import { test } from 'tap'
import { checkHistory, randomHistory, rng } from '../helpers/random-histories'

const RUNS = Number(process.env.RANDOM_HISTORIES_RUNS ?? 8)
const FROM = Number(process.env.RANDOM_HISTORIES_FROM ?? 1)
const VERIFY = process.env.RANDOM_HISTORIES_VERIFY === '1'

test('random histories of changes: every version of each serves what its document says, unchanged by the round trip', async (t) => {
  for (let seed = FROM; seed < FROM + RUNS; seed++) {
    const history = randomHistory(rng(seed * 7919))
    const problems = await checkHistory(history, seed, { verify: VERIFY })
    t.same(problems, [], `seed ${seed}: ${JSON.stringify(history.versions)}`)
  }
})
