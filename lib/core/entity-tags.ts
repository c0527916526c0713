/**
 * Entity tags (RFC 9110 §8.8.3): a strong tag made from a representation's bytes, and the `If-None-Match` condition
 * (§13.1.2), which compares tags weakly (`W/"x"` matches `"x"`), takes a list, and `*` for any representation.
 * @module
 */
import { createHash } from 'node:crypto'

/**
 * The strong entity tag of some bytes: their SHA-256 (base64url), quoted; the same in every process.
 * @example `reply.header('etag', strongEntityTag(text)) // "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"`
 */
export function strongEntityTag (bytes: string | Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`
}

/** An entity tag in a list: optionally weak, its opaque part quoted (the characters RFC 9110 allows inside). */
const LISTED_TAG = /(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g

/**
 * True when an `If-None-Match` header matches strong tag `tag`: `*`, or a listed tag of the same opaque part, weak or not.
 * @example `noneMatchFails('W/"a", "b"', '"a"') // true`
 */
export function noneMatchFails (header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false
  const value = Array.isArray(header) ? header.join(', ') : header
  if (value.trim() === '*') return true
  for (const match of value.matchAll(LISTED_TAG)) if (match[1] === tag) return true
  return false
}
