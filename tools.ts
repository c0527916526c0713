/**
 * `fastify-versioner/tools`: what works on a readied application rather than serving it: `verify`, the documents'
 * `export` and `check`, the `types` module, `injectEveryVersion`, `replaceFromEveryVersion` and `readWebhookDelivery` for tests, `loadApp`, and the command line
 * (`runCli`, which also runs `retire`). Kept apart from the plugin's entry, so that an application that only serves
 * loads none of it, nor its libraries (fast-check, api-smart-diff).
 * @example
 * ```ts
 * import { verify } from 'fastify-versioner/tools'
 * await app.ready()
 * const findings = await verify(app)
 * ```
 * @module
 */
export { verify, type VerifyFinding, type VerifyFindings, type VerifyOptions, type UnverifiedNote } from './lib/tools/verify'
export type { ReplaceFinding } from './lib/tools/verify-replace'
export type { ErrorBodyFinding } from './lib/tools/verify-error-bodies'
export type { CarrierFinding } from './lib/tools/verify-carriers'
export { injectEveryVersion, type EveryVersionRequest, type InjectEveryVersionOptions } from './lib/tools/every-version'
export { readWebhookDelivery, type ReadWebhookDeliveryOptions, type SentWebhook, type WebhookDeliveryFinding } from './lib/tools/webhook-reading'
export { replaceFromEveryVersion, type ReplaceFromEveryVersionOptions, type ReplaceFromVersionFinding } from './lib/tools/replace-every-version'
export { exportDocuments, invalidExamples, servedDocuments, type ChannelOptions, type InvalidExample, type InvalidExamplesOptions, type ServedDocument } from './lib/tools/export'
export { checkDocuments, compareDocuments, type CheckResult, type CompareOptions, type DocumentChange } from './lib/tools/check'
export { typesModule } from './lib/tools/types-module'
export { loadApp } from './lib/tools/load-app'
export { runCli } from './lib/tools/cli'
export type { CommandOutput } from './lib/tools/api-commands'
export { readTraffic, type RecordedExchange, type Traffic, type TrafficLine, type TrafficProblem, type DeliveryLine, type RecordedWebhook, type RecordedRefusal, type RefusalLine } from './lib/tools/traffic-file'
export { replayTraffic, type NotReplayed, type ReplayFinding, type ReplayReport, type ReplayTrafficOptions } from './lib/tools/replay-traffic'
export { mutateConverters, type MutateOptions, type MutantVerdict, type MutationReport } from './lib/tools/mutate'
export type { MutantOperator } from './lib/tools/mutants'
export { savedFingerprint, type SavedFingerprint } from './lib/tools/fingerprint'
