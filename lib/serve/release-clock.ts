/**
 * The release clock: which releases are served, and which versions are in a brownout or gone, at an instant of the
 * plugin's `now` clock; the schedule is cut at start-up into stretches, each computed once (decision 0082).
 * @module
 */
import { VersionerStructureError } from '../core/errors'
import { kBundleInternals } from '../core/symbols'
import type { Brownout } from '../describe/release-dates'
import type { ReleasedVersions, VersionBundle } from '../describe/versions'

/** What is served during one stretch of the schedule, from `from` (included) to `until` (excluded), in milliseconds. */
interface ReleaseStretch extends ReleasedVersions {
  readonly from: number
  readonly until: number
  /** The brownout each version is in during the stretch. */
  readonly brownouts: ReadonlyMap<string, Brownout>
}

/** The options that say what is released: the bundle, and the clock when something is scheduled. */
export interface ReleaseSource {
  readonly versions: VersionBundle
  readonly releases?: ReleaseClock | undefined
}

const NO_BROWNOUT: ReadonlyMap<string, Brownout> = new Map()

/**
 * The releases and brownouts of a bundle by the time: one stretch per interval between the instants of its schedule.
 * @example `startReleaseClock(versions, Date.now)?.at(Date.now()).values // served then, newest first`
 */
export class ReleaseClock {
  /** The stretch of the last time asked (the clock moves on, so it is almost always the next one's). */
  private stretch: ReleaseStretch

  constructor (private readonly stretches: readonly ReleaseStretch[], private readonly now: () => number) {
    this.stretch = stretches[0]
  }

  /** The stretch the plugin's clock is in now. */
  current (): ReleaseStretch {
    return this.at(this.now())
  }

  /** The stretch `time` (milliseconds since the epoch) is in: one comparison while it stays in the same one. */
  at (time: number): ReleaseStretch {
    const stretch = this.stretch
    if (time < stretch.until && time >= stretch.from) return stretch
    // A clock set back (a test's, or a machine's) finds its stretch too.
    this.stretch = this.stretches.find((candidate) => time < candidate.until) ?? this.stretches[this.stretches.length - 1]
    return this.stretch
  }

  /** What `build` gives for each stretch, built once per stretch now: one list, in the order of the stretches. */
  eachStretch<T> (build: (stretch: ReleaseStretch) => T): readonly T[] {
    return this.stretches.map(build)
  }

  /** Of values given in the order of the stretches ({@link eachStretch}), the current stretch's. */
  currentOf<T> (values: readonly T[]): T {
    return values[this.stretches.indexOf(this.current())]
  }
}

/** The stretch from `from` to `until`: the releases whose `releasedAt` passed at `from`, and the brownouts going on. */
function stretchOf (versions: VersionBundle, from: number, until: number): ReleaseStretch {
  const all = versions[kBundleInternals].released
  const served = all.values.flatMap((value, index) => (versions.get(value)?.releasedAt?.getTime() ?? -Infinity) <= from ? [index] : [])
  const values = served.map((index) => all.values[index])
  const picks = new Map([...all.picks].filter(([, pick]) => values.includes(pick.version)))
  const brownouts = new Map<string, Brownout>()
  for (const version of versions.versions) {
    const window = version.brownouts.find((candidate) => candidate.start.getTime() <= from && from < candidate.end.getTime())
    if (window !== undefined) brownouts.set(version.value, window)
  }
  return Object.freeze({ from, until, values: Object.freeze(values), dates: Object.freeze(served.map((index) => all.dates[index])), picks, brownouts: brownouts.size === 0 ? NO_BROWNOUT : brownouts })
}

/**
 * The clock of a bundle, started at its registration: `undefined` when nothing is scheduled after start-up (such an
 * application costs nothing per request). Throws `FST_VERSIONER_STRUCTURE` when no release is served at start-up.
 * @example `startReleaseClock(versions, Date.now)?.current().values // served now, newest first`
 */
export function startReleaseClock (versions: VersionBundle, now: () => number): ReleaseClock | undefined {
  const startedAt = now()
  const instants = new Set<number>()
  for (const version of versions.versions) {
    if (version.releasedAt !== undefined) instants.add(version.releasedAt.getTime())
    // A version gone at its sunset is no successor from then on (./version-headers.ts).
    if (version.afterSunset === 'gone') instants.add((version.sunsetAt as Date).getTime())
    for (const { start, end } of version.brownouts) instants.add(start.getTime()).add(end.getTime())
  }
  const sorted = [...instants].sort((a, b) => a - b)
  if (sorted.every((instant) => instant <= startedAt)) return undefined
  const bounds = [-Infinity, ...sorted, Infinity]
  const clock = new ReleaseClock(bounds.slice(0, -1).map((from, index) => stretchOf(versions, from, bounds[index + 1])), now)
  if (clock.at(startedAt).values.length === 0) {
    const oldest = versions.releasedValues[versions.releasedValues.length - 1]
    throw new VersionerStructureError(`No version is served at start-up (${new Date(startedAt).toISOString()} by the now clock): the oldest ` +
      `release '${oldest}' has releasedAt ${versions.get(oldest)?.releasedAt?.toISOString() ?? ''}. Serve at least one release from start-up.`)
  }
  return clock
}

/**
 * The releases served now: the clock's current stretch, or every release of the bundle when nothing is scheduled.
 * @example `releasedNow(options).values[0] // the newest version served now`
 */
export function releasedNow (options: ReleaseSource): ReleasedVersions {
  return options.releases === undefined ? options.versions[kBundleInternals].released : options.releases.current()
}
