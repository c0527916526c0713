/**
 * Where the strings of an example arrive, for `verify`: the strings a body delivers (under the fields its schema
 * declares), whether a sentinel is among them (whole, or word by word where a converter split it into several
 * fields), and whether a converter joined it with what JavaScript writes for a missing value (`undefined`).
 * @module
 */
import { asNode, declaredChildren, readingNode, type PathKey, type RefResolver } from './data-flow'
import { foldedText, normalizationChanged } from './renamed-values'
import { shown } from './value-comparison'

/**
 * The strings a body delivers under the fields `schema` declares ({@link foldedText}): what a handler typed by the schema
 * reads, or what the serializer of a response sends. Walked with an explicit stack (deep bodies are fine).
 */
export function deliveredStrings (schema: unknown, data: unknown, resolveRef: RefResolver): string[] {
  const found: string[] = []
  const stack: Array<[unknown, unknown]> = [[schema, data]]
  while (stack.length > 0) {
    const [rawSchema, value] = stack.pop() as [unknown, unknown]
    const bare = asNode(rawSchema, resolveRef)
    if (typeof value === 'string') found.push(foldedText(value))
    if (bare === undefined || rawSchema === true) continue
    const node = readingNode(bare, value, resolveRef)
    if (Array.isArray(node.allOf)) for (const part of node.allOf as unknown[]) stack.push([part, value])
    if (typeof value === 'object' && value !== null) {
      for (const [key, sub] of declaredChildren(node, value)) stack.push([sub, (value as Record<PathKey, unknown>)[key]])
    }
  }
  return found
}

/**
 * True when a sentinel is among the delivered strings ({@link foldedText}, as {@link deliveredStrings} gives them):
 * contained in one (converters may join values), or, `byWords`, each of its words a word of one (a converter may
 * split a name into given and family names).
 * @example
 * ```ts
 * arrives('zq01 Łódź 🙂zq01', ['zq01', 'łódź 🙂zq01'], true) // true
 * arrives(' zq01  Łódź ', ['zq01 łódź'])                      // true: trimmed, as a version may show it
 * arrives('zq01 Łódź 🙂zq01', ['zq01'], true)                // false: a name cut at its first space
 * ```
 */
export function arrives (sentinel: string, delivered: readonly string[], byWords = false): boolean {
  const wanted = foldedText(sentinel)
  if (delivered.some((text) => text.includes(wanted))) return true
  if (!byWords || !wanted.includes(' ')) return false
  const words = new Set(delivered.flatMap((text) => text.split(' ')))
  return wanted.split(' ').every((word) => words.has(word))
}

/**
 * What became of a sentinel that does not arrive ({@link arrives}), `arrived` being what its place holds: `arrives as`
 * that value (saying where only its Unicode normalization changed), else `arrives in another Unicode normalization`
 * where a delivered string holds it normalized otherwise (`.normalize('NFC')`, `'NFKC'`), else `is found nowhere`.
 * @example
 * ```ts
 * notArriving('zq01 Łódź', ['zq01 łódź'], undefined) // 'is found nowhere'
 * ```
 */
export function notArriving (sentinel: string, delivered: readonly string[], arrived: unknown): string {
  if (arrived !== undefined) return `arrives as ${shown(arrived)}${normalizationChanged(sentinel, arrived)}`
  const wanted = foldedText(sentinel.normalize('NFKC'))
  return wanted !== foldedText(sentinel) && delivered.some((text) => text.normalize('NFKC').includes(wanted)) ? 'arrives in another Unicode normalization' : 'is found nowhere'
}

/**
 * The strings of `data` (under the fields `schema` declares) that are wholly what JavaScript writes for a value that is
 * none (`String(null)`, `${undefined}`: `'null'`, `'undefined'`, `'NaN'`, `'[object Object]'`), where `example` holds no
 * such string: a converter wrote it (a nullable field given to a version that lacks `null` as `String(memo)`).
 * @example
 * ```ts
 * madeUpArtefacts(Note, { memo: 'null' }, { memo: null }, resolveRef) // [{ path: ['memo'], text: 'null' }]
 * ```
 */
export function madeUpArtefacts (schema: unknown, data: unknown, example: unknown, resolveRef: RefResolver): Array<{ path: PathKey[], text: string }> {
  const held = new Set(JSON.stringify(example ?? null).toLowerCase().match(/"(?:undefined|null|nan|\[object object\])"/g))
  const found: Array<{ path: PathKey[], text: string }> = []
  const stack: Array<[unknown, unknown, PathKey[]]> = [[schema, data, []]]
  while (stack.length > 0) {
    const [rawSchema, value, path] = stack.pop() as [unknown, unknown, PathKey[]]
    if (typeof value === 'string' && WHOLE_ARTEFACT.test(value) && !held.has(JSON.stringify(value.toLowerCase()))) found.push({ path, text: value })
    const bare = asNode(rawSchema, resolveRef)
    if (bare === undefined || rawSchema === true || typeof value !== 'object' || value === null) continue
    for (const [key, sub] of declaredChildren(readingNode(bare, value, resolveRef), value)) stack.push([sub, (value as Record<PathKey, unknown>)[key], [...path, key]])
  }
  return found
}

const WHOLE_ARTEFACT = /^(?:undefined|null|nan|\[object object\])$/i

/** What JavaScript writes into a string for a value that is none: `${undefined}`, `String(null)`, `NaN`, an object. */
const ARTEFACT = /(?:^|[^\p{L}\p{N}_])(undefined|null|nan|\[object object\])(?![\p{L}\p{N}_])/u

/**
 * The delivered strings holding such an artefact (`undefined`, `null`, `nan`, `[object object]`): usually none.
 * @example
 * ```ts
 * spoiltStrings(['zq01 undefined', 'zq02']) // ['zq01 undefined']
 * ```
 */
export function spoiltStrings (delivered: readonly string[]): string[] {
  return delivered.filter((text) => ARTEFACT.test(text))
}

/**
 * The artefact beside a sentinel in the spoilt string holding it ({@link spoiltStrings}), if any: a converter
 * joined it with a value that is not there (`${given} ${family}` without a family name).
 * @example
 * ```ts
 * artefactBeside('zq01', ['zq01 undefined']) // 'undefined'
 * artefactBeside('zq01', ['zq01 undefined', 'zq02 null']) // 'undefined'
 * ```
 */
export function artefactBeside (sentinel: string, spoilt: readonly string[]): string | undefined {
  const wanted = foldedText(sentinel)
  for (const text of spoilt) {
    if (text.length === wanted.length || !text.includes(wanted)) continue
    const found = ARTEFACT.exec(text.replaceAll(wanted, ' '))
    if (found !== null) return found[1]
  }
  return undefined
}
