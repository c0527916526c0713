/**
 * The keywords of field instructions (`had({...})`, `existedAs({...})`), checked when the application becomes ready by
 * the application's Ajv, as Fastify checks a route's own schemas (decision 0161): what it would refuse in a version's
 * request schema fails `ready()` instead of every request of that version, and a misspelt `name`, `type`, `optional`
 * or keyword, which a response's serializer would ignore, fails wherever it is.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { InvalidGenerationInstructionError } from '../core/errors'
import { fastifyAjv, type AjvInstance, type AppAjvSetup } from '../core/strict-validator'
import { checkInstructionReferences } from './usage-checks'
import { requestSchemas } from './version-plan'
import { ownValidatorCompiler, type VersionerState } from './versioner-state'

/** What an instruction gives besides keywords; and annotations OpenAPI documents read, never taken for a misspelling. */
const ATTRIBUTES = ['name', 'type', 'optional']
const DOCUMENT_ONLY = new Set(['example', 'discriminator', 'xml', 'externalDocs'])

/** What of Ajv is read here besides {@link AjvInstance}: its keywords and whether it validates schemas strictly. */
interface AjvRules {
  RULES?: { keywords?: Record<string, unknown> }
  validateSchema?: (schema: object) => boolean
  errors?: Array<{ instancePath?: string, message?: string }> | null
}

/** The number of single-letter edits (a swap of two neighbours counting as one) from `a` to `b`. */
function distance (a: string, b: string): number {
  const rows = [Array.from({ length: b.length + 1 }, (_, index) => index)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j], rows[i - 2][j - 2] + 1)
    }
    rows.push(row)
  }
  return rows[a.length][b.length]
}

/** The attribute or keyword `key` most likely misspells (a case, one edit, two in a long word; a word ending in `name`: not `enumNames`), if any. */
function meant (key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase()
  if (lower.endsWith('name')) return 'name'
  let best: [string, number] | undefined
  for (const word of [...ATTRIBUTES, ...known]) {
    const edits = distance(lower, word.toLowerCase())
    const allowed = word.length >= 6 ? 2 : word.length >= 4 ? 1 : 0
    if (edits <= allowed && (best === undefined || edits < best[1])) best = [word, edits]
  }
  return best?.[0]
}

/** What the application's Ajv refuses of `keywords` (`request`: in a request schema), and what was meant; `undefined` if nothing. */
function refused (ajv: AjvInstance & AjvRules, keywords: Readonly<Record<string, unknown>>, request: boolean): string | undefined {
  const known = Object.keys(ajv.RULES?.keywords ?? {})
  const strict = ajv.opts?.strictSchema !== false && ajv.opts?.strict !== false
  for (const key of Object.keys(keywords)) {
    if (known.includes(key)) continue
    const guess = key.startsWith('x-') || DOCUMENT_ONLY.has(key) ? undefined : meant(key, known)
    if (guess === undefined && !(request && strict)) continue
    const hint = guess === undefined
      ? 'Register it with the application\'s Ajv (Fastify({ ajv: { customOptions: { keywords: [...] } } })) or remove it.'
      : ATTRIBUTES.includes(guess) ? `Did you mean { ${guess} }?` : `Did you mean '${guess}'?`
    return `'${key}' is no keyword the application's Ajv knows: ${request && strict ? 'it would refuse the version\'s request schema' : 'the serializer ignores it'}. ${hint}`
  }
  if (!request) return undefined
  if (typeof keywords.format === 'string' && ajv.opts?.validateFormats !== false && ajv.formats?.[keywords.format] === undefined) {
    return `format '${keywords.format}' is no format the application's Ajv knows (${Object.keys(ajv.formats ?? {}).join(', ')}).`
  }
  if (ajv.validateSchema?.({ ...keywords }) === false) return `the application's Ajv refuses it: ${ajv.errors?.map((error) => `${error.instancePath ?? ''} ${error.message ?? ''}`.trim()).join('; ') ?? ''}.`
  if (typeof keywords.pattern === 'string') {
    try {
      RegExp(keywords.pattern, 'u').test('')
    } catch (error) {
      return `its pattern is not a regular expression Ajv compiles: ${(error as Error).message}.`
    }
  }
  return undefined
}

/**
 * Throws `InvalidGenerationInstructionError` naming the first field instruction whose keywords the application's Ajv
 * would refuse in a request schema validated by it, or that misspell an attribute or keyword anywhere.
 */
function checkInstructionKeywords (state: VersionerState, setup: AppAjvSetup): void {
  let ajv: (AjvInstance & AjvRules) | undefined
  let requests: TSchema[] | undefined
  for (const change of state.steps.flatMap((step) => step.changes)) {
    for (const instruction of change.instructions) {
      if ((instruction.kind !== 'field.had' && instruction.kind !== 'field.existedAs') || Object.keys(instruction.keywords).length === 0) continue
      ajv ??= fastifyAjv({}, setup)
      requests ??= state.headRoutes.filter((route) => ownValidatorCompiler(route.validation) === undefined).flatMap(requestSchemas)
      const request = requests.some((root) => state.planner.targets.occurs(root, instruction.schema, 0))
      const problem = refused(ajv, instruction.keywords, request)
      if (problem === undefined) continue
      throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change.name}' (version '${change.version}'): ${problem}`)
    }
  }
}

/**
 * Checks the field instructions when the application is ready: their `$ref`s name schemas of the application
 * (./usage-checks.ts), and their keywords are ones its Ajv takes.
 * @example `checkFieldInstructions(state, appAjvSetup(fastify))`
 */
export function checkFieldInstructions (state: VersionerState, setup: AppAjvSetup): void {
  checkInstructionReferences(state)
  checkInstructionKeywords(state, setup)
}
