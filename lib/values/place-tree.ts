/**
 * Places in data, numbered (./occurrences.ts): telling a place seen before compares numbers, never pointers or objects
 * (one object may sit at two places).
 * @module
 */

/** Places in data, numbered in a tree of steps (a key, an index, `*` for any item): a place is its parent's and one step. */
export class PlaceTree {
  readonly parents: number[] = [-1]
  readonly steps: string[] = ['']
  /** By place, its children's places by step. */
  readonly children: Array<Map<string, number> | undefined> = [undefined]

  /** The place one `step` below `place`, numbered when first asked for. */
  child (place: number, step: string): number {
    const known = this.children[place] ??= new Map()
    let child = known.get(step)
    if (child === undefined) {
      child = this.parents.push(place) - 1
      this.steps.push(step)
      this.children.push(undefined)
      known.set(step, child)
    }
    return child
  }
}
