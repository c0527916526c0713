/**
 * The version-value fuzz of the hostile tests (not a test file): any strings, binary strings, real dates, date-shaped
 * strings with impossible parts, and values close to real versions (`extra` adds an application's own, such as its
 * preview version names).
 */
import fc from 'fast-check'

/** Version values a client might send: hostile, almost right, or right (`known` and `extra` among them). */
export function versionValues (known: readonly string[], extra: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
    fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 39 }))
      .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
    fc.constantFrom(...known, ...extra, '', ' 2001-01-01', '2001-01-01 ', '2001-1-1', '__proto__', 'constructor', 'latest')
  )
}

/**
 * Values close to named versions (`2025-06-01.dahlia`): a known date or month, or any date, with a known name, a name
 * one letter off, or any name; bare names; and `versionValues`' (`names` adds names that are no version's, such as a
 * preview's).
 */
export function namedVersionValues (known: readonly string[], names: readonly string[] = []): fc.Arbitrary<string> {
  const dates = known.map((value) => /^\d{4}-\d{2}(-\d{2})?/.exec(value)?.[0]).filter((date) => date !== undefined)
  const knownNames = [...known.map((value) => /^\d{4}-\d{2}(?:-\d{2})?\.(.+)$/.exec(value)?.[1]).filter((name) => name !== undefined), ...names]
  const anyName = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/)
  const name = knownNames.length === 0
    ? anyName
    : fc.oneof(fc.constantFrom(...knownNames), anyName, fc.tuple(fc.constantFrom(...knownNames), fc.nat(), fc.constantFrom('a', 'y', 'X', ''))
      .map(([base, at, letter]) => `${base.slice(0, at % (base.length + 1))}${letter}${base.slice((at % (base.length + 1)) + 1)}`).filter((typo) => typo !== ''))
  const date = fc.oneof(
    ...(dates.length === 0 ? [] : [fc.constantFrom(...dates)]),
    fc.date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((day) => day.toISOString().slice(0, 10))
  )
  return fc.oneof(fc.tuple(date, name).map(([day, label]) => `${day}.${label}`), name, versionValues(known, names))
}
