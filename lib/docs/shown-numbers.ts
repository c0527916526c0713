/**
 * The numbers of an upgrade example that a conversion changes, made to show it: 12.34 units and 1234 cents, not 0
 * and 0 (decision [0336](../../docs/decisions/0336-upgrade-examples-show-the-numbers-a-converter-changes.md)).
 * @module
 */
import type { Case } from './example-cases'

/** A before/after pair, as a case of an upgrade example makes it. */
interface Pair {
  readonly before?: unknown
  readonly after: unknown
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** Each leaf where `plain` and `probed` differ, as the two values' JSON (a key one lacks: `undefined` there). */
function changedLeaves (plain: unknown, probed: unknown, found: Set<string>): Set<string> {
  if (isRecord(plain) && isRecord(probed) && Array.isArray(plain) === Array.isArray(probed)) {
    for (const key of new Set([...Object.keys(plain), ...Object.keys(probed)])) changedLeaves(plain[key], probed[key], found)
  } else if (JSON.stringify(plain) !== JSON.stringify(probed)) {
    found.add(`${JSON.stringify(plain)} ${JSON.stringify(probed)}`)
  }
  return found
}

/**
 * The pair `make` makes of `item`, with each number its example generates that the conversion changes made one that
 * shows it (`exampleOf`'s `showing`). A number is probed alone: it is the conversion's unless the probe's pair differs
 * from the plain one only where the plain number became the shown one (copied, or moved to a renamed field, as it is).
 * A probe a converter refuses leaves its number plain; when the chosen numbers together fail, the plain pair is given.
 * @example
 * ```ts
 * // AmountsInCents: a line's unitAmount 12.34 in 2024-04-10 is 1234 in 2024-09-30; its quantity stays 1.
 * const pair = await withShownNumbers({}, async (item) => await convert(exampleOf(form, { showing: item.showing, onNumber: item.onNumber })))
 * ```
 */
export async function withShownNumbers<P extends Pair> (item: Case, make: (item: Case) => Promise<P>): Promise<P> {
  const numbers = new Map<string, number>()
  const plain = await make({ ...item, onNumber: (pointer, value) => { numbers.set(pointer, value) } })
  const changed = new Set<string>()
  for (const [place, value] of numbers) {
    let shown: number | undefined
    const probe = await make({ ...item, showing: new Set([place]), onNumber: (pointer, made) => { if (pointer === place) shown = made } }).catch(() => undefined)
    if (probe === undefined || shown === undefined || shown === value) continue
    const leaves = changedLeaves(plain.after, probe.after, changedLeaves(plain.before, probe.before, new Set()))
    if ([...leaves].some((leaf) => leaf !== `${JSON.stringify(value)} ${JSON.stringify(shown)}`)) changed.add(place)
  }
  if (changed.size === 0) return plain
  return await make({ ...item, showing: changed }).catch(() => plain)
}
