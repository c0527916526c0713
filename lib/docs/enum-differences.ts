/**
 * The enum members that differ between the versions around a change: the upgrade guide makes an example of each
 * (decision 0070).
 * @module
 */
import { isEndpointInstruction } from '../describe/instructions'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import type { VersionerState } from '../routes/versioner-state'
import type { TSchema } from '@sinclair/typebox'

/**
 * The values of one enum that differ between the versions around a change.
 * @example
 * ```ts
 * const difference: EnumDifference = { head: Status, display: 'Status', newer: [{ value: 'refunded', toward: 'refunded' }], older: [] }
 * ```
 */
export interface EnumDifference {
  /** The enum's HEAD schema. */
  readonly head: TSchema
  readonly display: string
  /** Values the version after the change has and the one before lacks, each with the HEAD value it is (`toward`). */
  readonly newer: ReadonlyArray<{ readonly value: unknown, readonly toward: unknown }>
  /** Values the version before the change has and the one after lacks (an old client may send them). */
  readonly older: ReadonlyArray<{ readonly value: unknown, readonly toward: unknown }>
}

/**
 * The values of the enums `change` edits that differ between step `level`'s versions (after: `level`, before: `level + 1`).
 * @example
 * ```ts
 * for (const difference of enumDifferences(state, change, level)) console.log(difference.display, difference.newer, difference.older)
 * ```
 */
export function enumDifferences (state: VersionerState, change: VersionChangeDescriptor, level: number): EnumDifference[] {
  const { generation } = state
  const differences: EnumDifference[] = []
  const seen = new Set<unknown>()
  for (const instruction of change.instructions) {
    if (isEndpointInstruction(instruction) || !instruction.kind.startsWith('enum.')) continue
    const seed = generation.seedOf(instruction.schema)
    if (seed === undefined || seen.has(seed)) continue
    seen.add(seed)
    const membersAt = (at: number): ReadonlyArray<{ readonly value: unknown, readonly head?: unknown }> => {
      const found = generation.stateAt(seed.head, at)
      return found.kind === 'enum' ? found.members : []
    }
    const [after, before] = [membersAt(level), membersAt(level + 1)]
    const lacks = (members: typeof after, value: unknown): boolean => !members.some((member) => member.value === value)
    differences.push({
      head: seed.head,
      display: seed.display,
      newer: after.filter((member) => member.head !== undefined && lacks(before, member.value)).map((member) => ({ value: member.value, toward: member.head })),
      older: before.filter((member) => lacks(after, member.value)).map((member) => ({ value: member.value, toward: member.value }))
    })
  }
  return differences
}
