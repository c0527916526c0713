/**
 * `verify` on an application with years of monthly versions (test/helpers/many-releases.ts): the application does
 * not grow, its history does. What a replay looks at per level is counted in test/tools/migration-verify.test.ts;
 * here, the whole run: as many examples per version at 48 versions as at 12, and every version migrating cleanly.
 */
import { test } from 'tap'
import { verify } from '../../tools'
import { manyReleasesApp } from '../helpers/many-releases'

test('four years of monthly versions verify cleanly, with as many examples a version as one year', async (t) => {
  const replayed: number[] = []
  for (const versions of [12, 48]) {
    const app = await manyReleasesApp(t, versions)
    await app.ready()
    const findings = await verify(app, { examples: 3 })
    t.same(findings.map((finding) => finding.text), [], `${versions} versions: every version migrates cleanly`)
    t.same(findings.unverified.map((note) => note.text), [], `${versions} versions: every part verified`)
    replayed.push(findings.replayed / versions)
    await app.close()
  }
  t.ok(replayed[1] <= replayed[0] * 1.25, `examples a version: ${replayed.map((count) => count.toFixed(1)).join(' at 12, ')} at 48`)
})
