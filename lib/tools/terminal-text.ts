/**
 * Text for the terminal: what the tools print from a usage file or an application (client ids, field names,
 * paths, patterns, an error an application threw) is escaped, so that it cannot move the cursor, colour or clear
 * the screen, or start a line of its own that looks like the tool's (`check: no breaking change…`).
 *
 * Escaped: control characters (C0, DEL and C1: a newline shows as `\n`, ESC as `\x1b`), format characters (the
 * bidirectional controls that reorder what a terminal shows, zero-width characters, a byte order mark) and the
 * Unicode line and paragraph separators. Everything else, backslashes included, is shown as it is (so `\n` is also
 * how a text holding a backslash and an `n` shows).
 * @module
 */
import { types } from 'node:util'

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** The escape of one unsafe character: `\n`, `\r`, `\t`, `\xNN` up to U+00FF, `\uNNNN` up to U+FFFF, else `\u{NNNNN}`. */
function escapeOf (character: string): string {
  const named = NAMED[character]
  if (named !== undefined) return named
  const code = character.codePointAt(0) as number
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`
}

/**
 * A text on one line, safe to print: control characters, line separators and bidirectional controls escaped.
 * @example
 * ```ts
 * printable('acct_1\ncheck: ok') // 'acct_1\\ncheck: ok'
 * printable('\u001b[2Jx')        // '\\x1b[2Jx'
 * ```
 */
export function printable (text: string): string {
  return text.replace(UNSAFE, escapeOf)
}

/**
 * What the command prints: each of the text's own lines made {@link printable} (the newlines the tools put
 * between lines stay; text they interpolate from a file or an application is made printable where it is).
 * @example
 * ```ts
 * terminalLines('wrote a.json\nwrote \u001b[31mb.json') // 'wrote a.json\nwrote \\x1b[31mb.json'
 * ```
 */
export function terminalLines (text: string): string {
  return text.split('\n').map(printable).join('\n')
}

/**
 * What was thrown, for a message, whatever it is, made printable: an `Error`'s name, code and message on one line, then
 * the frames of its stack (each indented, so that no line of it reads as the tool's own); a string; or a short
 * description of anything else (`null`, `undefined`, an object). Never throws itself.
 * @example
 * ```ts
 * describeThrown(new Error('no database'))   // 'Error: no database\n    at build (app.js:3:9)…'
 * describeThrown(new VersionerStructureError('x')) // 'FastifyError [FST_VERSIONER_STRUCTURE]: x\n    at …'
 * describeThrown(null)                       // 'null'
 * ```
 */
export function describeThrown (thrown: unknown): string {
  try {
    if (thrown instanceof Error || types.isNativeError(thrown)) {
      const frames = String(thrown.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
      // Its code, as Node shows one (`Error [ERR_X]: …`), unless the message holds it (`connect ECONNREFUSED …`).
      const code = (thrown as { code?: unknown }).code
      const coded = typeof code === 'string' && !String(thrown.message).includes(code) ? ` [${code}]` : ''
      return [`${printable(String(thrown.name))}${printable(coded)}: ${printable(String(thrown.message))}`, ...frames.map(printable)].join('\n')
    }
    if (typeof thrown === 'string') return thrown === '' ? "'' (an empty string)" : printable(thrown)
    if (typeof thrown === 'function') return printable(`function ${thrown.name === '' ? '(anonymous)' : thrown.name}`)
    if (typeof thrown !== 'object' || thrown === null) return printable(String(thrown))
    const text = JSON.stringify(thrown) ?? String(thrown)
    return printable(text.length > 300 ? `${text.slice(0, 300)}…` : text)
  } catch {
    return `a value that cannot be shown (${typeof thrown})`
  }
}

/**
 * A path or value as a command to copy shows it: as it is when it holds only characters no shell reads specially,
 * else in double quotes (which POSIX shells, PowerShell and cmd.exe all read around a path with spaces).
 * @example
 * ```ts
 * commandArgument('openapi')             // 'openapi'
 * commandArgument('my project/types.ts') // '"my project/types.ts"'
 * ```
 */
export function commandArgument (text: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(text) ? text : `"${text}"`
}
