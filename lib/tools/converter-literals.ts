/**
 * The dictionary of `verify`'s examples: the strings a version change's converters compare values against
 * (`status === 'legacy'`, a table keyed by currency), so that an example takes the branch they guard
 * (./example-generation.ts puts each in the string fields whose schema accepts it). For each decorated method (its
 * text as it runs, `Function.prototype.toString()`, and the text of the module file declaring its class:
 * ./declaring-module.ts), the literals are: the strings and object keys of the method's own text, then those of the
 * declarations (`const`, `let`, `var`, `function`, `class`, `enum`) of the names its text uses, one level deep (a
 * module's table of currencies, a helper's list); each in upper and lower case too when that text calls `toLowerCase`
 * or `toUpperCase`.
 * Numbers are not read; neither are values computed, imported from another module, or read from a file or a service.
 * @module
 */
import type { ConverterStep } from '../routes/converter-steps'
import type { Version } from '../describe/version'
import type { JsonSchema } from '../values/examples'
import type { FormatPatterns } from '../values/string-examples'
import { patternOf } from '../values/string-examples'
import { declaringModuleTexts } from './declaring-module'

/** A decorated method (or any function) of a version change class. */
type Method = (...args: never[]) => unknown

/** One token of JavaScript source: a string's value, a name, or a punctuator (other text is skipped). */
interface Token { readonly kind: 'string' | 'name' | 'punct', readonly text: string }

/** Where a `/` starts a regular expression rather than a division: after these, or at the start. */
const BEFORE_REGEXP = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', 'return', 'typeof', '=>'])
const DECLARES = new Set(['const', 'let', 'var', 'function', 'class', 'enum'])
/**
 * A literal that may be a value compared against: a letter or digit, no space at either end, no template's `${`
 * (a separator `split(', ')` or `join(' ')` splits; a client's `', '` cut to `''` is no branch).
 */
const VALUE = /^(?!\s)(?!.*\$\{)(?=.*[\p{L}\p{N}]).*(?<!\s)$/su
/** The longest literal taken (a sentence is a message, not a value compared against). */
const MAX_LITERAL = 64

const NAME = /[\p{L}\p{N}_$]+/uy
const NUMBER = /[\d.xXa-fA-F_eEn]+/y

/** What a sticky expression matches at `at` (no copy of the rest of a long script). */
function match (expression: RegExp, source: string, at: number): string | undefined {
  expression.lastIndex = at
  return expression.exec(source)?.[0]
}

/** The tokens of `source`: comments, numbers and regular expressions skipped, a template's text as one string. */
export function tokensOf (source: string): Token[] {
  const tokens: Token[] = []
  let at = 0
  while (at < source.length) {
    const char = source[at]
    const rest = source.slice(at, at + 2)
    if (/\s/.test(char)) at++
    else if (rest === '//') at = source.indexOf('\n', at) === -1 ? source.length : source.indexOf('\n', at)
    else if (rest === '/*') at = source.indexOf('*/', at + 2) === -1 ? source.length : source.indexOf('*/', at + 2) + 2
    else if (char === '"' || char === "'" || char === '`') {
      let end = at + 1
      let text = ''
      while (end < source.length && source[end] !== char) {
        if (source[end] === '\\') text += source[++end] ?? ''
        else text += source[end]
        end++
      }
      tokens.push({ kind: 'string', text })
      at = end + 1
    } else if (/[\p{L}_$]/u.test(char)) {
      const name = match(NAME, source, at) ?? char
      tokens.push({ kind: 'name', text: name })
      at += name.length
    } else if (/\d/.test(char)) at += match(NUMBER, source, at)?.length ?? 1
    else if (char === '/' && (tokens.length === 0 || BEFORE_REGEXP.has(tokens[tokens.length - 1].text))) {
      let end = at + 1
      for (let inClass = false; end < source.length && (source[end] !== '/' || inClass) && source[end] !== '\n'; end++) {
        if (source[end] === '\\') end++
        else if (source[end] === '[') inClass = true
        else if (source[end] === ']') inClass = false
      }
      at = end + 1
    } else {
      const punct = rest === '=>' ? rest : char
      tokens.push({ kind: 'punct', text: punct })
      at += punct.length
    }
  }
  return tokens
}

/** The strings and object keys among `tokens` (in order), with their other case when the tokens change a string's case. */
function literalsIn (tokens: readonly Token[]): string[] {
  const found: string[] = []
  tokens.forEach((token, index) => {
    const key = token.kind === 'name' && tokens[index + 1]?.text === ':' && ['{', ','].includes(tokens[index - 1]?.text)
    if ((token.kind === 'string' || key) && VALUE.test(token.text) && token.text.length <= MAX_LITERAL) found.push(token.text)
  })
  if (!tokens.some((token) => token.text === 'toLowerCase' || token.text === 'toUpperCase')) return found
  return [...found, ...found.flatMap((literal) => [literal.toLowerCase(), literal.toUpperCase()])]
}

/** The tokens of the declaration of `name` in `script` (to its `;` or closing bracket at its own depth), if any. */
function declarationOf (script: readonly Token[], name: string): Token[] {
  const start = script.findIndex((token, index) => token.text === name && token.kind === 'name' && DECLARES.has(script[index - 1]?.text))
  if (start === -1) return []
  let depth = 0
  for (let index = start + 1; index < script.length; index++) {
    const text = script[index].text
    if (text === '{' || text === '(' || text === '[') depth++
    else if (text === '}' || text === ')' || text === ']') depth--
    if (depth < 0 || (depth === 0 && (text === ';' || (text === '}' && ['function', 'class', 'enum'].includes(script[start - 1].text))))) return script.slice(start, index + 1)
    if (depth === 0 && DECLARES.has(text) && index > start + 1) return script.slice(start, index)
  }
  return script.slice(start)
}

/**
 * The literals of one method: its own text's, then those of the declarations in `script` of the names it uses (not
 * its parameters, the first parenthesis's names, nor its own declarations).
 */
function methodLiterals (method: Method, script: readonly Token[]): string[] {
  const own = tokensOf(Function.prototype.toString.call(method))
  const local = new Set(own.slice(0, own.findIndex((token) => token.text === ')')).map((token) => token.text))
  const names = new Set(own.filter((token, index) => token.kind === 'name' && own[index - 1]?.text !== '.' && !local.has(token.text) &&
    !DECLARES.has(own[index - 1]?.text)).map((token) => token.text))
  return [...literalsIn(own), ...[...names].flatMap((name) => literalsIn(declarationOf(script, name)))]
}

/** What `verify`'s targets need of the dictionary: the literals of a plan's converter steps. */
export interface LiteralEnvironment {
  readonly literalsOf: (steps: readonly ConverterStep[]) => string[]
}

/**
 * The literals of the converters of every version change of `versions`, read once (each module's file once per process); the
 * function returned gives those of a plan's steps, in order, each once.
 * @example
 * ```ts
 * const literalsOf = converterLiterals(state.options.versions.versions)
 * generateExamples(form, { ...env, literals: literalsOf(plan.requestSteps) })
 * ```
 */
export function converterLiterals (versions: readonly Version[]): (steps: readonly ConverterStep[]) => string[] {
  const methods = new Map<string, { readonly method: Method, readonly module: string | undefined }>()
  const modules = declaringModuleTexts(versions.flatMap((version) => version.changes))
  for (const version of versions) {
    for (const change of version.changes) {
      const module = modules.get(change)
      for (const owner of [change as unknown as Record<string, unknown>, change.prototype as Record<string, unknown>]) {
        for (const key of Object.getOwnPropertyNames(owner)) {
          const method = Object.getOwnPropertyDescriptor(owner, key)?.value as unknown
          if (typeof method === 'function' && key !== 'constructor') methods.set(`${version.value} ${change.name} ${owner === change.prototype ? '' : 'static '}${key}`, { method: method as Method, module })
        }
      }
    }
  }
  const tokens = new Map([...new Set([...methods.values()].map(({ module }) => module))].map((module) => [module, module === undefined ? [] : tokensOf(module)]))
  const literals = new Map([...methods].map(([key, { method, module }]) => [key, methodLiterals(method, tokens.get(module) ?? [])]))
  return (steps) => [...new Set(steps.flatMap(({ converter }) =>
    literals.get(`${converter.change.version} ${converter.change.name} ${converter.isStatic ? 'static ' : ''}${String(converter.methodName)}`) ?? []))]
}

/** The most examples of literals for one schema (a route, version, direction and part): with 200 random ones, 4 % more. */
export const MAX_LITERAL_EXAMPLES = 8

/**
 * True when a string node of `verify`'s examples accepts `literal.value` (its length bounds, pattern and format: a
 * format the application's Ajv knows; an unknown one accepts nothing), recorded in `literal.placed`.
 * @example
 * ```ts
 * const literal = { value: 'jpy', placed: false }
 * placesLiteral({ type: 'string', minLength: 3, maxLength: 3 }, literal, formats) // true, and literal.placed
 * ```
 */
export function placesLiteral (node: JsonSchema, literal: { readonly value: string, placed: boolean }, formats: FormatPatterns | undefined): boolean {
  const accepted = accepts(node, literal.value, formats)
  literal.placed ||= accepted
  return accepted
}

/** True when a string node accepts `literal` (see {@link placesLiteral}). */
function accepts (node: JsonSchema, literal: string, formats: FormatPatterns | undefined): boolean {
  const length = [...literal].length
  if ((typeof node.minLength === 'number' && length < node.minLength) || (typeof node.maxLength === 'number' && length > node.maxLength)) return false
  if (patternOf(node)?.test(literal) === false) return false
  if (typeof node.format !== 'string') return true
  const format = formats?.(node.format)
  return format instanceof RegExp ? format.test(literal) : typeof format === 'function' && format(literal)
}
