/**
 * Reading the project's Markdown for test/docs-code-blocks.test.ts: its fenced code blocks with the `check`
 * comment before each, its relative links, and its headings' anchors (as GitHub makes them).
 *
 * A `check` comment is an HTML comment on the line before a block's opening fence (blank lines between are
 * allowed): `<!-- check: run -->`, `<!-- check: prelude=app -->`, `<!-- check: run; prelude=app -->`,
 * `<!-- check: skip (the reason) -->`. docs/README.md documents them for writers.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** What a `check` comment asks of the block after it. */
export interface CheckDirective {
  /** Execute the block (TypeScript) with tsx; it must exit 0. */
  readonly run: boolean
  /** The reason the block is not checked, when it is skipped. */
  readonly skip: string | undefined
  /** Named preludes whose declarations the block may use (see test/helpers/docs-preludes.ts). */
  readonly preludes: readonly string[]
}

/** One fenced code block. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  readonly file: string
  /** The line (1-based) of the block's first line of code. */
  readonly line: number
  /** The info string's first word (`ts`, `sh`…), `''` when there is none. */
  readonly lang: string
  /** The code, with the fence's indentation removed. */
  readonly code: string
  readonly directive: CheckDirective
  /** What is wrong with the block's `check` comment, if anything. */
  readonly directiveError: string | undefined
}

/** One relative link (or image) of a Markdown file. */
export interface MarkdownLink {
  readonly file: string
  readonly line: number
  readonly target: string
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/
const CHECK_COMMENT = /^\s*<!--\s*check:(.*?)-->\s*$/

/** README.md, ARCHITECTURE.md, CHANGELOG.md and every Markdown file under docs/, relative to `root`, README first. */
export function markdownFiles (root: string): string[] {
  const found: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) found.push(path)
    }
  }
  walk('docs')
  return ['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md', ...found.sort()]
}

/** Reads a `check` comment's text (after `check:`). */
export function parseDirective (text: string): { directive: CheckDirective, error: string | undefined } {
  let run = false
  let skip: string | undefined
  const preludes: string[] = []
  const errors: string[] = []
  // Parts are separated by `;` outside parentheses (a skip's reason may hold one).
  for (const part of text.split(/;(?![^(]*\))/).map((item) => item.trim()).filter((item) => item !== '')) {
    const skipped = /^skip\s*\((.+)\)$/.exec(part)
    const prelude = /^prelude=([\w-]+(?:,[\w-]+)*)$/.exec(part)
    if (part === 'run') run = true
    else if (skipped !== null) skip = skipped[1].trim()
    else if (prelude !== null) preludes.push(...prelude[1].split(','))
    else if (part.startsWith('skip')) errors.push(`'${part}': a skip needs its reason in parentheses, skip (why)`)
    else errors.push(`'${part}' is not run, skip (reason) or prelude=name`)
  }
  if (skip !== undefined && (run || preludes.length > 0)) errors.push('a skipped block cannot also be run or take preludes')
  if (text.trim() === '') errors.push('an empty check comment')
  return { directive: { run, skip, preludes }, error: errors.length === 0 ? undefined : errors.join('; ') }
}

/** The `check` comment before line `index` (skipping blank lines), or `undefined`. */
function commentBefore (lines: readonly string[], index: number): string | undefined {
  for (let i = index - 1; i >= 0; i--) {
    if (lines[i].trim() === '') continue
    return CHECK_COMMENT.exec(lines[i])?.[1]
  }
  return undefined
}

/** Every fenced code block of a Markdown text. */
export function codeBlocks (file: string, text: string): CodeBlock[] {
  const lines = text.split('\n')
  const blocks: CodeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i])
    if (open === null) continue
    const [, indent, fence, lang] = open
    let end = i + 1
    while (end < lines.length && !new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) end++
    const code = lines.slice(i + 1, end).map((line) => line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()).join('\n')
    const comment = commentBefore(lines, i)
    const parsed = parseDirective(comment ?? 'none')
    blocks.push({
      file,
      line: i + 2,
      lang,
      code,
      directive: comment === undefined ? { run: false, skip: undefined, preludes: [] } : parsed.directive,
      directiveError: comment === undefined ? undefined : parsed.error
    })
    i = end
  }
  return blocks
}

/** The text with fenced blocks blanked (line numbers kept), and inline code too unless `keepCode`. */
function proseOnly (text: string, keepCode = false): string[] {
  const lines = text.split('\n')
  let fence: string | undefined
  return lines.map((line) => {
    if (fence !== undefined) {
      if (new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`).test(line)) fence = undefined
      return ''
    }
    const open = FENCE.exec(line)
    if (open !== null) {
      fence = open[2]
      return ''
    }
    return keepCode ? line.replace(/`/g, '') : line.replace(/(`+)[^`]*?\1/g, '')
  })
}

/** Every relative link and image of a Markdown text (not `http:`, `https:` or `mailto:`). */
export function relativeLinks (file: string, text: string): MarkdownLink[] {
  const links: MarkdownLink[] = []
  proseOnly(text).forEach((line, index) => {
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map((match) => match[1]),
      ...[...line.matchAll(/<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"/g)].map((match) => match[1])
    ]
    for (const target of targets) {
      if (/^(https?|mailto):/.test(target)) continue
      links.push({ file, line: index + 1, target })
    }
  })
  return links
}

/** The anchor GitHub gives a heading's text. */
export function headingSlug (heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors of every heading of a Markdown text (GitHub numbers repeated ones: `name`, `name-1`…). */
export function headingAnchors (text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseOnly(text, true)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading === null) continue
    const slug = headingSlug(heading[1])
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** Reads a file as UTF-8. */
export function readText (path: string): string {
  return readFileSync(path, 'utf8')
}
