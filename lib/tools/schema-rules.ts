/**
 * Rules a schema holds beside its own keywords, for `check` (decision 0196): a named validator's fragment in an
 * object's `allOf` (`withValidators`), any `allOf` member asserting without a `type` or `$ref` of its own, and an
 * `anyOf` / `oneOf` of such members beside a `type` or `properties` ("name a customer or statuses"). `api-smart-diff`
 * merges an `allOf` into its object and writes an `anyOf` beside keywords out into its members, so a rule added to a
 * request read as a union gaining a member (a note) and one added to a response as its `type` gone (a break). The
 * documents are diffed without them, and each place's rules compared here: a rule a request schema gains narrows what
 * it accepts (a break: the version change adding it declares `validator(…).didntExist`), one it loses widens it (a
 * note); a response's the other way round. A querystring's, headers' or params' object as a whole holds its rules in
 * its operation's `x-parameter-rules` (decision 0198): compared as a request's, none where the operation has none.
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import { setOwn } from '../core/own-properties'
import { pointerKey } from '../core/json-schema'
import { PARAMETER_RULES, splitRules } from '../docs/parameter-rules'
import { METHODS, operationName } from './comparable-documents'
import { dataPointer, own, placeOf, report, TEXT_KEYS, withoutText, type Comparison, type JsonPath, type RawDiff } from './document-places'
import { printable } from './terminal-text'

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Keys whose values are data, not schemas: never walked for rules. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'example', 'examples'])

/** How deep the walks go (`check` refuses documents nested deeper than 256 levels; `$ref`s followed add to it). */
const MAX_DEPTH = 1024

/**
 * A copy of a document without the rules of its schemas (see the module), wherever they are: the documents the diff
 * compares. The document is not changed.
 */
export function withoutRules<T> (document: T): T {
  const copy = stripped(document, 0)
  const paths = own(copy, 'paths')
  for (const operations of Object.values(isJson(paths) ? paths : {})) {
    for (const [method, operation] of Object.entries(isJson(operations) ? operations : {})) if (METHODS.has(method) && isJson(operation)) delete operation[PARAMETER_RULES]
  }
  return copy as T
}

function stripped (value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map((item) => stripped(item, depth + 1))
  if (!isJson(value)) return value
  const node = splitRules(value)?.rest ?? value
  const copy: Json = {}
  for (const [key, item] of Object.entries(node)) setOwn(copy, key, DATA_KEYS.has(key) || TEXT_KEYS.has(key) ? item : stripped(item, depth + 1))
  return copy
}

/** The rules found under one operation's schemas: by place key, the JSON path (as the diff writes it) and the rules. */
type Found = Map<string, { path: JsonPath, rules: unknown[], where?: string }>

/**
 * The rules of every schema an operation of `document` uses, `$ref`s followed (each once on a branch), keyed by
 * place: the path, a parameter named by where it is and its name rather than its position. Places holding no rule
 * are keyed too (with none), for a rule to be compared only where both documents have the place.
 */
function rulesOf (document: unknown): Found {
  const found: Found = new Map()
  const visit = (node: unknown, path: JsonPath, key: string, refs: readonly string[]): void => {
    const ref = own(node, '$ref')
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      if (refs.includes(ref) || refs.length > 64) return
      let target: unknown = document
      for (const part of ref.slice(2).split('/')) target = own(target, pointerKey(part))
      visit(target, path, key, [...refs, ref])
      return
    }
    if (path.length > MAX_DEPTH) return
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index], `${key}/${parameterKey(path, item) ?? index}`, refs))
      return
    }
    if (!isJson(node)) return
    const split = splitRules(node)
    found.set(key, { path, rules: split?.rules ?? [] })
    for (const [name, item] of Object.entries(split?.rest ?? node)) {
      if (!DATA_KEYS.has(name) && !TEXT_KEYS.has(name)) visit(item, [...path, name], `${key}/${JSON.stringify(name)}`, refs)
    }
  }
  const paths = own(document, 'paths')
  for (const [item, operations] of Object.entries(isJson(paths) ? paths : {})) {
    for (const [method, operation] of Object.entries(isJson(operations) ? operations : {})) {
      if (!METHODS.has(method) || !isJson(operation)) continue
      const { [PARAMETER_RULES]: objects, ...rest } = operation
      visit(rest, ['paths', item, method], JSON.stringify([item, method]), [])
      parameterObjectRules(found, ['paths', item, method], rest, objects)
    }
  }
  return found
}

/**
 * The rules of an operation's querystring, headers and params objects (`x-parameter-rules`, decision 0198), keyed by
 * where the parameters are: none where the operation has parameters there and no rule, so that a rule gained there is
 * seen.
 */
function parameterObjectRules (found: Found, path: JsonPath, operation: Json, objects: unknown): void {
  const parameters = own(operation, 'parameters')
  const held = new Set(Array.isArray(parameters) ? parameters.map((parameter) => own(parameter, 'in')) : [])
  for (const location of ['query', 'header', 'path']) {
    const rules = own(objects, location)
    if (!held.has(location) && rules === undefined) continue
    found.set(`${JSON.stringify(path.slice(1))}/${location} parameters`, { path, rules: Array.isArray(rules) ? rules : [], where: `${location} parameters` })
  }
}

/** A parameter of an operation's list as its place key names it (`query limit`), not by its position. */
function parameterKey (path: JsonPath, item: unknown): string | undefined {
  if (path.length !== 4 || path[3] !== 'parameters' || !isJson(item)) return undefined
  return typeof item.in === 'string' && typeof item.name === 'string' ? JSON.stringify(`${item.in} ${item.name}`) : undefined
}

/** A rule as a change shows it: its JSON, text aside, cut at 100 characters. */
function shownRule (rule: unknown): string {
  const text = JSON.stringify(withoutText(rule)) ?? ''
  return printable(text.length > 100 ? `${text.slice(0, 99)}…` : text)
}

/** True when `wider` is `narrower` with members added to its `anyOf`, nothing else changed: it takes more. */
function widensUnion (narrower: unknown, wider: unknown): boolean {
  if (!isJson(narrower) || !isJson(wider) || !Array.isArray(narrower.anyOf) || !Array.isArray(wider.anyOf)) return false
  const { anyOf: fewer, ...restNarrower } = narrower
  const { anyOf: more, ...restWider } = wider
  return isDeepStrictEqual(restNarrower, restWider) && (fewer as unknown[]).every((member) => (more as unknown[]).some((other) => isDeepStrictEqual(member, other)))
}

const FIX = 'a request it refuses now was accepted before: declare schema(…).validator(name).didntExist in the version change that adds it, so that older versions keep accepting them, and a request converter that makes their requests meet it'

/**
 * Reports the rules each place of `saved` and `current` (the documents before {@link withoutRules}) gained or lost,
 * where both hold the place: a rule gained narrows (a request breaks), one lost widens (a response breaks); an
 * `anyOf` rule given more members widens.
 * @example
 * ```ts
 * ruleChanges(comparison, savedDocument, currentDocument) // … request body /: rule added: {"anyOf":[…]} (a request it refuses …)
 * ```
 */
export function ruleChanges (comparison: Comparison, saved: unknown, current: unknown): void {
  const [before, after] = [rulesOf(saved), rulesOf(current)]
  for (const [key, { path, rules, where: named }] of before) {
    const now = after.get(key)?.rules
    if (now === undefined) continue
    const plain = (list: unknown[]): unknown[] => list.map(withoutText)
    const [was, is] = [plain(rules), plain(now)]
    const gone = was.filter((rule) => !is.some((other) => isDeepStrictEqual(rule, other)))
    const added = is.filter((rule) => !was.some((other) => isDeepStrictEqual(rule, other)))
    if (gone.length === 0 && added.length === 0) continue
    const place = placeOf({ path, action: 'replace' } as unknown as RawDiff, saved, path.slice(0, 3))
    const { pointer, keyword } = dataPointer(place.schemaPath)
    const where = named ?? `${place.place} ${pointer === '' ? '/' : pointer}${keyword.length === 0 ? '' : ` ${keyword.join('/')}`}`
    const operation = operationName(path[1], String(path[2]))
    const request = named !== undefined || place.side === 'request'
    for (const rule of gone) {
      const wider = added.find((other) => widensUnion(rule, other))
      if (wider !== undefined) {
        added.splice(added.indexOf(wider), 1)
        report(comparison, operation, where, `rule widened: ${shownRule(rule)} → ${shownRule(wider)}${request ? ' (what it accepted, it accepts)' : ''}`, !request)
      } else report(comparison, operation, where, `rule removed: ${shownRule(rule)}${request ? ' (widened: what it accepted, it accepts)' : ''}`, !request)
    }
    for (const rule of added) report(comparison, operation, where, `rule added: ${shownRule(rule)} (${request ? FIX : 'narrowed: what it sends, it sent before'})`, request)
  }
}
