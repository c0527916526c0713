// The tools entry (fastify-versioner/tools) as a user sees it: verify, the every-version helper, check, types, the CLI.
import Fastify, { type LightMyRequestResponse } from 'fastify'
import { expectAssignable, expectError, expectType } from 'tsd'
import {
  checkDocuments, injectEveryVersion, runCli, typesModule, verify, type CheckResult, type CommandOutput, type VerifyFinding, type VerifyFindings
} from '../../dist/tools'
import '../..'

const app = Fastify()

expectType<Promise<VerifyFindings>>(verify(app))
expectAssignable<Promise<VerifyFinding[]>>(verify(app, { examples: 50, seed: 3 }))
void verify(app).then((findings) => { expectType<number>(findings.replayed) })
expectAssignable<VerifyFinding['kind']>('replace clears')
expectAssignable<VerifyFinding['kind']>('update overwrites')
expectAssignable<VerifyFinding['kind']>('error body')
expectError(verify(app, { examples: '50' }))
expectError(verify({ versioner: {} }))
expectType<Promise<Map<string, LightMyRequestResponse>>>(injectEveryVersion(app, { method: 'POST', url: '/users', payload: { address: 'a' } }))
expectType<Promise<Map<string, LightMyRequestResponse>>>(injectEveryVersion(app, (version) => ({ url: `/users?v=${version}` }), { versions: ['2000-01-01'] }))
expectError(injectEveryVersion(app, { method: 'POST' }))
expectType<Promise<CheckResult>>(checkDocuments(app, 'openapi'))
expectType<Promise<string>>(typesModule(app, { channel: 'preview' }))
const terminal: CommandOutput = { out: (line) => { console.log(line) }, err: (line) => { console.error(line) } }
expectType<Promise<number>>(runCli(['verify', 'dist/app.js', '--examples', '50'], terminal))
expectError(runCli('verify dist/app.js', terminal))
