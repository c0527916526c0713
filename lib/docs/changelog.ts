/**
 * The changelog (deprecated in the spec, still served): every version's changes, newest first, with their
 * descriptions, side-effect flag and typed entries generated from their instructions (./changelog-entries.ts),
 * naming the affected OpenAPI schemas as they are in that version (./changelog-models.ts).
 * @module
 */
import { ChangelogEntries } from './changelog-entries'
import { ChangelogModels } from './changelog-models'
import type { Changelog } from './changelog-resource'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'

/** The changelog of an application, built on first use (once its routes are known). */
export function changelogOnce (state: VersionerState, webhooks: Webhooks): () => Changelog {
  let built: Changelog | undefined
  return () => (built ??= buildChangelog(state, webhooks))
}

function buildChangelog (state: VersionerState, webhooks: Webhooks): Changelog {
  const entries = new ChangelogEntries(state, webhooks, new ChangelogModels(state, webhooks))
  // Level 1 is the newest version; the oldest version has no changes (nothing is older). Preview versions are left out.
  const bundle = state.options.versions
  const versions = bundle.versionValues.slice(0, -1).flatMap((value, index) => {
    const level = index + 1
    if (!bundle.releasedValues.includes(value)) return []
    return {
      value,
      changes: state.steps[level].changes.map((change) => ({
        description: change.description,
        sideEffects: change.hasSideEffects,
        instructions: change.instructions.map((instruction) => entries.of(instruction, level))
      }))
    }
  })
  return { versions }
}
