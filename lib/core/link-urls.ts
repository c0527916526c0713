/**
 * URLs that go into a `Link` response header (RFC 8288): a version's lifecycle page, a field deprecation's page.
 * @module
 */

/** True for a URL that can stand inside `<…>` in a `Link` header. */
export function isHeaderSafeUrl (value: unknown): value is string {
  // Printable ASCII only (so no spaces), and none of the characters a URL must escape.
  if (typeof value !== 'string' || value === '' || /[^\x21-\x7e]|["<>\\^`{|}]/.test(value)) return false
  return value.startsWith('/') || URL.canParse(value)
}
