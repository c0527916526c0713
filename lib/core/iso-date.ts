/**
 * ISO 8601 calendar dates (`YYYY-MM-DD`), the default format of version values.
 * @module
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real calendar date written `YYYY-MM-DD` (so `2001-02-30` is false). */
export function isIsoDate (value: string): boolean {
  const match = ISO_DATE.exec(value)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** The ISO date (`YYYY-MM-DD`, UTC) of a `Date`. */
export function toIsoDate (date: Date): string {
  return date.toISOString().slice(0, 10)
}

/**
 * The date a `Date` given as a version names: a `Date` at local midnight is that local date (`new Date(2024, 8, 30)`,
 * what node-postgres and mysql2 give for a `DATE` column; its UTC date is the day before east of UTC), any other its
 * UTC date (`new Date('2024-09-30')`, Prisma's `@db.Date`, an instant such as an account's creation). Either way the
 * same date on a server in any time zone (decision 0248).
 * @example `versionDateOf(new Date(2024, 8, 30)) // '2024-09-30' in Tokyo, Berlin, UTC or Adak`
 */
export function versionDateOf (date: Date): string {
  if (!isLocalMidnight(date)) return toIsoDate(date)
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  const local = new Date(0)
  local.setUTCFullYear(date.getFullYear(), date.getMonth(), date.getDate())
  return toIsoDate(local)
}

/**
 * Whether a `Date` is at local midnight in this process's time zone (`new Date(2027, 0, 1)`; a `DATE` column as
 * node-postgres reads it).
 * @example `isLocalMidnight(new Date(2027, 0, 1)) // true in any time zone`
 */
export function isLocalMidnight (date: Date): boolean {
  return date.getHours() === 0 && date.getMinutes() === 0 && date.getSeconds() === 0 && date.getMilliseconds() === 0
}

const NAMED_DATE = /^(\d{4}-\d{2}-\d{2})(?:\.([A-Za-z0-9_-]+))?$/

/**
 * The date of a date version: `2024-09-30` for `2024-09-30` and for a named one such as `2024-09-30.acacia`
 * (Stripe's style); `undefined` for anything else.
 */
export function versionDate (value: string): string | undefined {
  const match = NAMED_DATE.exec(value)
  return match !== null && isIsoDate(match[1]) ? match[1] : undefined
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

/** True for a month written `YYYY-MM` (`2026-04`), the ids of `apiVersionFormat: 'month'`. */
export function isMonth (value: string): boolean {
  return MONTH.test(value)
}

/** The month a requested value names: `2026-05` for `2026-05` and for a date inside it (`2026-05-17`); else `undefined`. */
export function monthOf (value: string): string | undefined {
  if (isMonth(value)) return value
  return isIsoDate(value) ? value.slice(0, 7) : undefined
}
