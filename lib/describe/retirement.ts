/**
 * An API without its oldest versions, for `fastify-versioner retire`: registrations made inside a run of
 * {@link retirements} serve the cut bundle ([decision 0056](../../docs/decisions/0056-usage-per-change-and-retire.md)).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { VersionBundle } from './versions'

/** Which bundle one registration serves while the application is built for `retire`: a cut one, or `undefined` to keep its own. */
type RetirementCut = (bundle: VersionBundle, where: { readonly apiName: string | undefined, readonly prefix: string }) => VersionBundle | undefined

/**
 * The cut of the build in progress, which every plugin registration asks (none outside `retire`: reading it costs a
 * lookup, and nothing is stored per request).
 * @example
 * const app = await retirements.run((bundle) => bundleWithout(bundle, '2000-01-01'), () => loadApp('app.js'))
 */
export const retirements = new AsyncLocalStorage<RetirementCut>()
