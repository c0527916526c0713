/**
 * `fastify-versioner retire <app> --version V`: prints what retiring V and every older version removes
 * (./retire-plan.ts), builds the application again without them (the same module, each plugin registration serving
 * a bundle cut by ../describe/retirement.ts), and proves what remains: `check` (each remaining version's document
 * against the one the whole application serves) and `verify`. It exits 1 when they find anything, when a retired
 * version's `sunsetAt` has not passed, or, with `--usage <file> --quiet-days N`, when a retired version had traffic
 * inside the last N days ([decision 0056](../../docs/decisions/0056-usage-per-change-and-retire.md)).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { requestValidationSetup } from './validation-in-force'
import { retirements } from '../describe/retirement'
import { versionDate } from '../core/iso-date'
import type { VersionBundle } from '../describe/versions'
import { namedVersion, resolveVersion } from '../serve/version-picking'
import { eachApi, printCheck, printVerify, type CommandOutput, type CommandRun } from './api-commands'
import { compareInto, type CheckResult } from './check'
import { change } from './document-places'
import { servedDocuments, toolFacts } from './export'
import { closeApp, loadApp } from './load-app'
import { bundleWithout, retirementPlan, type RetirementPlan } from './retire-plan'
import { readUsageFiles, usageOfApi, usageVerdict, type VersionUsage } from './retire-usage'
import { describeThrown, printable } from './terminal-text'
import { apiNameFrom } from '../core/application-root'
import { selectApis, versionerStateOf, type VersionedApi } from './versioned-apis'
import { rootOf } from '../core/application-root'
import { verify } from './verify'

/** `retire` as the command line gives it (`--api <name>` and verify's options as for the other commands). */
interface RetireRun extends Pick<CommandRun, 'api' | 'verifyOptions'> {
  /** `--version V`: V and every older version are retired. */
  readonly version: string
  /** `--usage <file>`, once per file (one per instance, say): read as one. */
  readonly usage: readonly string[] | undefined
  /** `--quiet-days N` (with `--usage`). */
  readonly quietDays: number | undefined
}

/**
 * The version `--version` names in one API, read as the other tools read a version (the one version reader): a
 * version's value, or a named date version's plain date (`2024-06-01` for `2024-06-01.acacia`). A date that only
 * waterfalls to an older version is refused, naming that version; one the API lacks is left to `retirementPlan`.
 */
function retiredVersion (context: FastifyInstance, value: string): string {
  const picked = namedVersion(value, { versions: context.versioner.versions, format: toolFacts(context).format })
  if (!picked.ok || picked.version === value || versionDate(picked.version) === value) return picked.ok ? picked.version : value
  throw new VersionerToolError(`--version '${value}' is not a version of this API: a request naming it is served ${picked.version}, the closest older ` +
    `version. Name that one (--version ${picked.version}) to retire it and every older version.`)
}

/**
 * Refuses a plan retiring the version a string `apiVersionDefaultValue` serves: requests naming no version are its
 * clients too, and the application without it would not start.
 */
function checkDefault (context: FastifyInstance, plan: RetirementPlan): void {
  const { defaultValue, format } = toolFacts(context)
  const picked = resolveVersion(defaultValue, { versions: context.versioner.versions, format })
  if (!picked.ok || !plan.retired.some((retired) => retired.value === picked.version)) return
  throw new VersionerToolError(`apiVersionDefaultValue '${defaultValue as string}' is served ${picked.version}, which retiring ${plan.retired[0].value} ` +
    `removes: requests naming no version are served it. Set apiVersionDefaultValue to a remaining version (the oldest is ${plan.remaining[plan.remaining.length - 1]}) ` +
    'or remove it, tell the clients that send no version (their served events have no requested), then retire.')
}

/** What else deleting a listed route, webhook, field or member takes: the instructions of kept changes naming it (HeadVersion's hiding it). */
function alsoDelete (plan: RetirementPlan, listed: string): string {
  const changes = plan.namedBy[listed]
  return changes === undefined ? '' : `; delete its instruction in ${changes.join(', ')} too`
}

/** Prints what the plan removes (names from the application made printable: one line each). */
function printPlan (plan: RetirementPlan, io: CommandOutput): void {
  io.out(`retire ${printable(plan.retired[0].value)}${plan.retired.length > 1 ? ' and every older version' : ''} removes:`)
  for (const retired of plan.retired) {
    io.out(`  version ${printable(retired.value)}${retired.sunsetAt === undefined ? ' (no sunsetAt)' : ` (sunsetAt ${retired.sunsetAt.toISOString()})`}`)
  }
  const lines = [
    ...plan.changes.map((removed) => `change ${removed.name} (in Version('${removed.holder}'))`),
    ...plan.converters.map((converter) => `converter ${converter}`),
    ...plan.routes.map((route) => `route ${route}: no remaining version serves it${alsoDelete(plan, route)}`),
    ...plan.webhooks.map((webhook) => `webhook ${webhook}: no remaining version sends it${alsoDelete(plan, webhook)}`),
    ...plan.fields.map((field) => `field ${field}: ${plan.headOnly.includes(field)
      ? 'no version shows it; a removed converter can read its schema (HEAD kept it for that converter, or keeps it for a version ' +
        'not yet released: check which)'
      : 'kept in HEAD only for retired versions (every remaining version hides it)'}${alsoDelete(plan, field)}`),
    ...plan.members.map((member) => `enum member ${member}: kept in HEAD only for retired versions (every remaining version lacks it)${alsoDelete(plan, member)}`)
  ]
  for (const line of lines) io.out(`  ${printable(line)}`)
}

/** Each remaining version's document (and the unversioned one) served without the retired versions, against the whole application's. */
async function checkRemaining (full: FastifyInstance, cut: FastifyInstance, plan: RetirementPlan): Promise<CheckResult> {
  const after = new Map((await servedDocuments(cut)).map((document) => [document.version, document]))
  const result: CheckResult = { breaks: [], notes: [], compared: [] }
  const validation = requestValidationSetup(full)
  for (const { version, body } of await servedDocuments(full)) {
    if (plan.retired.some((retired) => retired.value === version)) continue
    const now = after.get(version)
    if (now === undefined) result.breaks.push(change(version, '', '', 'version removed', true))
    else compareInto(result, version, JSON.parse(body.toString('utf8')), JSON.parse(now.body.toString('utf8')), validation)
  }
  return result
}

/** The sunset verdict on the retired versions: 1 when one's `sunsetAt` has not passed. */
function checkSunsets (plan: RetirementPlan, now: number, io: CommandOutput): number {
  let code = 0
  for (const retired of plan.retired) {
    if (retired.sunsetAt === undefined) {
      io.out(`note: ${retired.value} has no sunsetAt: its clients were never told when it ends (no Sunset header); retire does not refuse it for that.`)
    } else if (retired.sunsetAt.getTime() > now) {
      io.err(`retire: ${retired.value}'s sunsetAt (${retired.sunsetAt.toISOString()}) has not passed: its clients were told it is served until then. ` +
        'Retire it after that date, or name a version whose sunset has passed.')
      code = 1
    }
  }
  return code
}

/** What one API's retirement needs besides the API, whole and cut. */
interface ApiRetirement {
  readonly plan: RetirementPlan
  readonly run: RetireRun
  /** The API's usage, by version (`--usage`). */
  readonly usage: ReadonlyMap<string, VersionUsage> | undefined
}

/** Retires on one API (`full`: as the whole application has it): the plan, sunsets, usage, then check and verify on what remains; the exit code. */
async function retireApi (full: VersionedApi, cut: VersionedApi | undefined, retirement: ApiRetirement, io: CommandOutput): Promise<number> {
  const { plan, run, usage } = retirement
  printPlan(plan, io)
  const served = cut?.context.versioner.versions.versionValues ?? []
  if (cut === undefined || served.join() !== plan.remaining.join()) {
    throw new VersionerToolError(`The application built again without ${plan.retired[0].value} serves ${served.join(', ') || 'no version'}, not ` +
      `${plan.remaining.join(', ')}: retire could not cut its bundle. It needs the plugin registered while the module's app function runs (or ` +
      'while it is readied), with the VersionBundle it is given.')
  }
  io.out(`retire: the application without them serves ${plan.remaining.join(', ')}.`)
  const now = Date.now()
  let code = checkSunsets(plan, now, io)
  if (usage !== undefined) {
    for (const retired of plan.retired) code = Math.max(code, usageVerdict(retired.value, usage.get(retired.value), { quietDays: run.quietDays, now }, io))
  }
  const broken = printCheck(await checkRemaining(full.context, cut.context, plan), 'remaining', io)
  const findings = await verify(cut.context, run.verifyOptions)
  const found = printVerify(findings, `every remaining version of every versioned route migrates cleanly (${plan.remaining.length} version(s)`, io)
  return Math.max(code, broken, found)
}

/**
 * Runs `retire` on the application module at `path`: each versioned API (or the one `run.api` names); returns the
 * exit code. Throws `FST_VERSIONER_TOOL` for a usage file it cannot read, a version the API lacks (or its newest),
 * and an application it cannot build again.
 * @example
 * ```ts
 * const code = await retire('dist/app.js', { version: '2000-01-01', usage: undefined, quietDays: undefined, api: undefined, verifyOptions: {} }, { out: console.log, err: console.error })
 * ```
 */
export async function retire (path: string, run: RetireRun, io: CommandOutput): Promise<number> {
  const usage = run.usage === undefined ? undefined : await readUsageFiles(run.usage)
  const full = await loadApp(path)
  let cut: FastifyInstance | undefined
  let code = 1
  try {
    const apis = selectApis(full, run.api)
    const plans = new Map(apis.map((api) => {
      try {
        const plan = retirementPlan(versionerStateOf(api.context), retiredVersion(api.context, run.version), api.context.versioner.webhooks.list())
        checkDefault(api.context, plan)
        return [api.name, plan]
      } catch (error) {
        if (apis.length === 1) throw error
        throw new VersionerToolError(`API '${api.name}': ${(error as Error).message} Pick the API to retire a version of with --api <name>.`)
      }
    }))
    const usages = new Map(apis.map((api) => [api.name, usage === undefined ? undefined : usageOfApi(usage, { name: api.name, versions: api.context.versioner.versions.versionValues }, run.usage ?? [])]))
    const cutAt = (bundle: VersionBundle, where: { apiName?: string, prefix: string }): VersionBundle | undefined => {
      const version = plans.get(apiNameFrom(where.apiName, where.prefix))?.retired[0].value
      return version !== undefined && bundle.versionValues.includes(version) ? bundleWithout(bundle, version) : undefined
    }
    try {
      cut = await retirements.run(cutAt, async () => await loadApp(path))
    } catch (error) {
      throw new VersionerToolError(`The application built without ${run.version} and the older versions does not start: ${error instanceof Error ? error.message : describeThrown(error)}`)
    }
    if (rootOf(cut) === rootOf(full)) {
      cut = undefined
      throw new VersionerToolError(`'${path}' exports an application instance: retire builds the application a second time, without the retired ` +
        'versions, so the module must export a function building it (its default export, or build).')
    }
    const remaining = new Map(selectApis(cut, run.api).map((api) => [api.name, api]))
    code = await eachApi(apis, io, async (api, apiIo) =>
      await retireApi(api, remaining.get(api.name), { plan: plans.get(api.name) as RetirementPlan, run, usage: usages.get(api.name) }, apiIo))
  } finally {
    if (cut !== undefined) code = Math.max(code, await closeApp(cut, path, io))
    code = Math.max(code, await closeApp(full, path, io))
  }
  return code
}
