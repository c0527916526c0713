/**
 * One tap process for a folder of test files. Every file in test/<folder>/ is a tap test file of its own
 * (`npx tap test/migration/forms.test.ts` runs it alone); `npm test` runs each folder in one process, through
 * test/<folder>.test.ts, because a process per file cost about 2 CPU-seconds of tap's loaders and coverage: with 71
 * small files, about a third of the suite's time (docs/decisions/0062-one-process-per-test-folder.md).
 *
 * The files are found by listing the folder, so a new file runs without being registered anywhere
 * (test/layout.test.ts checks that no test file sits where no runner loads it). They share
 * the process: a test must not leave global state behind (a listener, an environment variable) that another
 * file's test could see; each one removes what it adds in its teardown.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

/** The time limit of a folder's process: the sum of its files, with room for a busy machine. */
const FOLDER_TIMEOUT = 600_000

/**
 * Loads every `*.test.ts` file of `folder` (absolute), in name order: each registers its tests on this process's
 * root test, and tap runs them one after the other.
 */
export function runTestFolder (folder: string): void {
  const files = readdirSync(folder).filter((name) => name.endsWith('.test.ts')).sort()
  if (files.length === 0) throw new Error(`${folder} holds no *.test.ts file: nothing would run`)
  for (const file of files) require(join(folder, file))
  // After the files: a file's own t.setTimeout() is the limit for that file alone, not for the folder.
  t.setTimeout(FOLDER_TIMEOUT)
}
