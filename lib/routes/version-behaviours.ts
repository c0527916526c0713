/**
 * Stage `lib/routes/`: the behaviours of one Fastify route by version, most of them built on first use.
 *
 * A route's versions are planned newest first. Once one has work of its own (something to validate, convert or
 * serialize differently), every older version has too: request and response plans only grow with age, and a
 * schema's form never returns to an earlier one. So registration builds behaviours up to that version, which is
 * what it needs (the versions its hook-less twin serves, and whether hooks are needed), and each older version's
 * behaviour is built on its first request instead: `ready()` does not grow with the versions a route's clients
 * may never use.
 * @module
 */
import type { VersionBehaviour } from './version-plan'

/**
 * Behaviours by version value: a `Map` whose deferred entries are built on first read (`get`, or any walk over
 * the entries). `has` and {@link versions} never build.
 * @example
 * const behaviours = new VersionBehaviours()
 * behaviours.set('2001-01-01', newest)
 * behaviours.defer('2000-01-01', () => buildOlder())
 * behaviours.has('2000-01-01') // true, nothing built
 * behaviours.get('2000-01-01') // built now, then kept
 */
export class VersionBehaviours extends Map<string, VersionBehaviour> {
  private readonly deferred = new Map<string, () => VersionBehaviour>()

  /** Adds a version whose behaviour `build` makes on first read. */
  defer (version: string, build: () => VersionBehaviour): void {
    this.deferred.set(version, build)
  }

  /** How many versions are still to build. */
  get deferredCount (): number {
    return this.deferred.size
  }

  /** Every version value, built or not, in order. */
  versions (): string[] {
    return [...super.keys(), ...this.deferred.keys()]
  }

  /** The behaviours built so far. */
  built (): IterableIterator<VersionBehaviour> {
    return super.values()
  }

  override get size (): number {
    return super.size + this.deferred.size
  }

  override get (version: string): VersionBehaviour | undefined {
    const known = super.get(version)
    if (known !== undefined || this.deferred.size === 0) return known
    const build = this.deferred.get(version)
    if (build === undefined) return undefined
    const behaviour = build()
    this.deferred.delete(version)
    super.set(version, behaviour)
    return behaviour
  }

  override set (version: string, behaviour: VersionBehaviour): this {
    // `deferred` is not there yet while Map's constructor adds initial entries.
    this.deferred?.delete(version)
    return super.set(version, behaviour)
  }

  override delete (version: string): boolean {
    const deferred = this.deferred.delete(version)
    return super.delete(version) || deferred
  }

  override clear (): void {
    this.deferred.clear()
    super.clear()
  }

  override has (version: string): boolean {
    return super.has(version) || this.deferred.has(version)
  }

  override keys (): MapIterator<string> {
    this.buildAll()
    return super.keys()
  }

  override values (): MapIterator<VersionBehaviour> {
    this.buildAll()
    return super.values()
  }

  override entries (): MapIterator<[string, VersionBehaviour]> {
    this.buildAll()
    return super.entries()
  }

  override [Symbol.iterator] (): MapIterator<[string, VersionBehaviour]> {
    return this.entries()
  }

  override forEach (callback: (value: VersionBehaviour, key: string, map: Map<string, VersionBehaviour>) => void, thisArg?: unknown): void {
    this.buildAll()
    super.forEach(callback, thisArg)
  }

  /** Builds every deferred behaviour (in version order: they follow the built ones). */
  private buildAll (): void {
    for (const version of [...this.deferred.keys()]) this.get(version)
  }
}
