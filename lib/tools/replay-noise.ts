/**
 * `replay --handlers`' noise: the places where the two fresh applications answer (or render) differently, by route
 * (by webhook and version), which hold what the handlers make anew (an id, a token) and are left out everywhere on the
 * route. A pair served while a second of the clock turned does not teach them: a value the handlers derive from the
 * clock more coarsely than it ticks (the seconds of the minute, a date) differs between the two applications there
 * and nowhere else, and learned from it, the place would be left out on every line, a change there caught or not by
 * the timing of one request (issue 31). Only a route with no pair served within one second learns from the others.
 * @module
 */

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
 * const add = noise.pair('GET /users/:id', false)
 * add('body/id')
 * noise.has('GET /users/:id', 'body/id') // true
 * ```
 */
export class Noise {
  /** Learned from pairs served within one second of the clock. */
  private readonly places = new Map<string, Set<string>>()
  /** Learned from pairs served while a second turned (or at no known time). */
  private readonly turned = new Map<string, Set<string>>()
  /** The routes with a pair served within one second. */
  private readonly steady = new Set<string>()

  /**
   * Notes a pair of the route's answers (`turned`: served while a second of the clock turned, or at no known time);
   * returns what adds a place where they differ.
   */
  pair (route: string, turned: boolean): (place: string) => void {
    if (!turned) this.steady.add(route)
    const places = turned ? this.turned : this.places
    return (place) => { addTo(places, route, place) }
  }

  /** True when the place, or a place holding it, was answered differently on the route. */
  has (route: string, place: string): boolean {
    return holds(this.places.get(route), place) || (!this.steady.has(route) && holds(this.turned.get(route), place))
  }
}
