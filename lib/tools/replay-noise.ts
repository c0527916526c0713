/**
 * `replay --handlers`' noise: the places where the two fresh applications answer (or render) differently, by route
 * (by webhook and version), which hold what the handlers make anew (an id, a token) and are left out everywhere on the
 * route. A pair served while a second of the clock turned does not teach them: a value the handlers derive from the
 * clock more coarsely than it ticks (the seconds of the minute, a date) differs between the two applications there
 * and nowhere else, and learned from it, the place would be left out on every line, a change there caught or not by
 * the timing of one request (issue 31). Such a pair teaches only the places no pair of the route served within one
 * second answered at (a value some requests only are answered with: a code made anew for a coupon).
 * @module
 */
import { valuesAtPointer } from './verify-updates'

/** Whether a pair's answer holds a value at a place (`*` for any item), as {@link Noise} names places. */
export type Answered = (place: string) => boolean

/**
 * Whether `value` holds something at a place named by a JSON pointer (`*` for any item or key, a list's `#order`
 * suffix left out).
 * @example `valueHeldAt({ items: [{ code: 7 }, {}] }, '/items/*') // true`
 */
export function valueHeldAt (value: unknown, pointer: string): boolean {
  return valuesAtPointer(value, pointer.replace(/#order$/, '')).length > 0
}

/** A pointer with its list indexes as `*`. */
function patternOf (pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|#|$)/g, '/*')
}

/** True when `place`, or a place holding it, is among `places`. */
function holds (places: ReadonlySet<string> | undefined, place: string): boolean {
  if (places === undefined) return false
  const pattern = patternOf(place)
  for (const noisy of places) if (pattern === noisy || pattern.startsWith(`${noisy}/`)) return true
  return false
}

/** Adds a place to a route's places. */
function addTo (places: Map<string, Set<string>>, route: string, place: string): void {
  let found = places.get(route)
  if (found === undefined) places.set(route, found = new Set())
  found.add(patternOf(place))
}

/**
 * By route, the places (`body/…`, `headers/name`, `status`; a delivery's pointers) the two applications answered
 * differently somewhere.
 * @example
 * ```ts
 * const noise = new Noise()
 * const add = noise.pair('GET /users/:id', false, () => true)
 * add('body/id')
 * noise.has('GET /users/:id', 'body/id') // true
 * ```
 */
export class Noise {
  /** Learned from pairs served within one second of the clock. */
  private readonly places = new Map<string, Set<string>>()
  /** Learned from pairs served while a second turned (or at no known time). */
  private readonly turned = new Map<string, Set<string>>()
  /** By route, where each pair served within one second answered. */
  private readonly steady = new Map<string, Answered[]>()

  /**
   * Notes a pair of the route's answers (`turned`: served while a second of the clock turned, or at no known time;
   * `answered`, where its first answer holds a value); returns what adds a place where they differ.
   */
  pair (route: string, turned: boolean, answered: Answered): (place: string) => void {
    if (!turned) {
      const known = this.steady.get(route)
      if (known === undefined) this.steady.set(route, [answered])
      else known.push(answered)
    }
    const places = turned ? this.turned : this.places
    return (place) => { addTo(places, route, place) }
  }

  /**
   * True when the place, or a place holding it, was answered differently on the route: by a pair served within one
   * second, or by one a second turned on where no such pair answered.
   */
  has (route: string, place: string): boolean {
    if (holds(this.places.get(route), place)) return true
    const steady = this.steady.get(route)
    const pattern = patternOf(place)
    for (const noisy of this.turned.get(route) ?? []) {
      if ((pattern === noisy || pattern.startsWith(`${noisy}/`)) && steady?.some((answered) => answered(noisy)) !== true) return true
    }
    return false
  }
}
