/**
 * An API without its oldest versions, for `fastify-versioner retire`: registrations inside {@link buildingWithout}
 * serve the cut bundle ([decision 0056](../../docs/decisions/0056-usage-per-change-and-retire.md)).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { VersionBundle } from './versions'

/** Which bundle one registration serves while the application is built for `retire`: a cut one, or `undefined` to keep its own. */
type RetirementCut = (bundle: VersionBundle, where: { readonly apiName: string | undefined, readonly prefix: string }) => VersionBundle | undefined

/** The cut of the build in progress (none outside `retire`: reading it costs a lookup, and nothing is stored per request). */
const retirements = new AsyncLocalStorage<RetirementCut>()

/**
 * Runs `build` (which builds and readies an application) so that every plugin registration it makes asks `cut`.
 * @example
 * const app = await buildingWithout((bundle) => bundleWithout(bundle, '2000-01-01'), () => loadApp('app.js'))
 */
export function buildingWithout<T> (cut: RetirementCut, build: () => Promise<T>): Promise<T> {
  return retirements.run(cut, build)
}

/** The cut of the retire build this registration is part of, if any. */
export function retirementOf (): RetirementCut | undefined {
  return retirements.getStore()
}
