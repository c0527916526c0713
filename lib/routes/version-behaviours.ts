/**
 * The behaviours of one Fastify route by version, each built on its first use, so `ready()` does not grow with
 * versions no client uses (idle versions are told by ./quiet-levels.ts).
 * @module
 */
import type { VersionBehaviour } from './version-plan'

/**
 * Behaviours by version value, built on first read.
 * @example
 * const behaviours = new VersionBehaviours(new Map([['2001-01-01', 1], ['2000-01-01', 2]]), (level, version) => plan(level, version))
 * behaviours.has('2000-01-01') // true, nothing built
 * behaviours.get('2000-01-01') // built now, then kept
 */
export class VersionBehaviours {
  private readonly built = new Map<string, VersionBehaviour>()

  /** `levels`: the level of each version the route serves, newest first; `build` plans one. */
  constructor (private readonly levels: ReadonlyMap<string, number>, private readonly build: (level: number, version: string) => VersionBehaviour) {}

  /** The behaviour of a version the route serves (built on first read), or `undefined`. */
  get (version: string): VersionBehaviour | undefined {
    const known = this.built.get(version)
    if (known !== undefined) return known
    const level = this.levels.get(version)
    if (level === undefined) return undefined
    const behaviour = this.build(level, version)
    this.built.set(version, behaviour)
    return behaviour
  }

  /** True when the route serves the version (nothing is built). */
  has (version: string): boolean {
    return this.levels.has(version)
  }

  /** Every version the route serves, newest first (nothing is built). */
  versions (): string[] {
    return [...this.levels.keys()]
  }

  /** Every behaviour, newest first (each built if it was not yet). */
  values (): VersionBehaviour[] {
    return this.versions().map((version) => this.get(version) as VersionBehaviour)
  }
}
