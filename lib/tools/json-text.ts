/**
 * Reading a JSON file the tools are given (a usage file, a saved document): parsed, or refused saying what is wrong
 * and where (line and column), without echoing the file's text. One pass, without recursion, checks the grammar
 * (RFC 8259) and how deep objects and arrays nest before `JSON.parse` runs, so a truncated, corrupted or absurdly
 * deep file is named at its place, and a file that passes is parsed by `JSON.parse` itself.
 * @module
 */
import { printable } from './terminal-text'

/** A place in a text: line and column, both from 1. */
interface TextPlace {
  readonly line: number
  readonly column: number
}

/** A JSON text parsed, or what is wrong with it and where. */
type ParsedJson =
  | { readonly ok: true, readonly value: unknown }
  | { readonly ok: false, readonly kind: 'syntax' | 'depth', readonly problem: string, readonly place: TextPlace }

const SPACE = /[ \t\n\r]*/y
// eslint-disable-next-line no-control-regex -- a JSON string holds no unescaped control character
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LITERAL = /true|false|null/y
const BAD_STRING = 'a string that is not closed, or holds a control character or a bad escape'

/** What the scanner expects next. */
type Expected = 'value' | 'value or ]' | 'name' | 'name or }' | ':' | 'next'

const EXPECTED_WORDS: Readonly<Record<Expected, string>> = {
  value: 'a value',
  'value or ]': "a value or ']'",
  name: 'a property name',
  'name or }': "a property name or '}'",
  ':': "':'",
  next: "',' or a closing bracket"
}

/** The line and column of an offset. */
function placeOf (text: string, offset: number): TextPlace {
  let line = 1
  let start = 0
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++
    start = index + 1
  }
  return { line, column: offset - start + 1 }
}

/** A character of the text, quoted and printable: `'o'`, `'\x1b'`. */
function shownCharacter (text: string, offset: number): string {
  return `'${printable(String.fromCodePoint(text.codePointAt(offset) as number))}'`
}

/** The first thing wrong with a JSON text, at its offset; `undefined` when it is JSON nesting at most `maxDepth` deep. */
function syntaxProblem (text: string, maxDepth: number): { problem: string, offset: number, depth?: true } | undefined {
  const closers: string[] = []
  let at = 0
  let expected: Expected = 'value'
  const token = (pattern: RegExp): boolean => {
    pattern.lastIndex = at
    if (!pattern.test(text)) return false
    at = pattern.lastIndex
    return true
  }
  for (;;) {
    token(SPACE)
    if (at >= text.length) {
      if (expected === 'next' && closers.length === 0) return undefined
      return { problem: text.trim() === '' ? 'the file is empty' : `the file ends before its JSON does (truncated?): expected ${EXPECTED_WORDS[expected]}`, offset: at }
    }
    const character = text[at]
    if (expected === 'next') {
      const closer = closers[closers.length - 1]
      if (closer === undefined) return { problem: `unexpected ${shownCharacter(text, at)} after the end of the JSON value`, offset: at }
      if (character === ',') expected = closer === '}' ? 'name' : 'value'
      else if (character === closer) closers.pop()
      else return { problem: `expected ',' or '${closer}', found ${shownCharacter(text, at)}`, offset: at }
      at++
    } else if (expected === ':') {
      if (character !== ':') return { problem: `expected ':' after a property name, found ${shownCharacter(text, at)}`, offset: at }
      at++
      expected = 'value'
    } else if ((expected === 'name or }' && character === '}') || (expected === 'value or ]' && character === ']')) {
      closers.pop()
      at++
      expected = 'next'
    } else if (expected === 'name' || expected === 'name or }') {
      if (!token(STRING)) return { problem: character === '"' ? BAD_STRING : `expected a property name in double quotes, found ${shownCharacter(text, at)}`, offset: at }
      expected = ':'
    } else if (character === '{' || character === '[') {
      if (closers.length >= maxDepth) return { problem: `objects and arrays nest deeper than ${maxDepth} levels`, offset: at, depth: true }
      closers.push(character === '{' ? '}' : ']')
      at++
      expected = character === '{' ? 'name or }' : 'value or ]'
    } else if (token(STRING) || token(NUMBER) || token(LITERAL)) {
      expected = 'next'
    } else {
      const problem = character === '"' ? BAD_STRING : `unexpected ${shownCharacter(text, at)}`
      return { problem, offset: at }
    }
  }
}

/**
 * Parses a JSON text whose objects and arrays nest at most `maxDepth` deep; otherwise says what is wrong and where.
 * @example
 * ```ts
 * parseJsonText('{"versions": {', 32) // { ok: false, kind: 'syntax', problem: "the file ends before its JSON does (truncated?): expected a property name or '}'", place: { line: 1, column: 15 } }
 * ```
 */
export function parseJsonText (text: string, maxDepth: number): ParsedJson {
  const found = syntaxProblem(text, maxDepth)
  if (found !== undefined) return { ok: false, kind: found.depth === true ? 'depth' : 'syntax', problem: found.problem, place: placeOf(text, found.offset) }
  return { ok: true, value: JSON.parse(text) }
}
