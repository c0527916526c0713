// tap's coverage map (see .taprc): which files each test file's coverage counts for. Every file, except for the
// mutation score's test (null: no coverage collected in its process). That test measures how many of a corpus of
// mistakes the tools catch; the code it runs is asserted by the tools' own tests, and V8's block counts, on in its
// process, cost it more than the 300 s the file allows on a busy machine.
export default function coverageMap (testFile) {
  return testFile === 'test/mutation-score.test.ts' ? null : []
}
