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
