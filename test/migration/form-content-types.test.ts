import { test } from 'tap'
import fc from 'fast-check'
import { formKind } from '../../lib/routes/schema-forms'

/**
 * Converters see form bodies as `RequestInfo.form` when the content type announces a form: its media type (in
 * any case, with whitespace around it, before any parameter) is `application/x-www-form-urlencoded` or
 * `multipart/form-data`. Anything else (JSON first of all) is not a form.
 */

/** The rule as written in words: the media type is the part before the first `;`, trimmed, in lower case. */
function byTheRule (contentType: string): 'urlencoded' | 'multipart' | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase()
  return type === 'application/x-www-form-urlencoded' ? 'urlencoded' : type === 'multipart/form-data' ? 'multipart' : undefined
}

test('property: formKind reads the media type as the rule says, whatever the case, whitespace and parameters', (t) => {
  const caseOf = (text: string): fc.Arbitrary<string> => fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, index) => upper[index] ? char.toUpperCase() : char).join(''))
  const mediaType = fc.oneof(
    caseOf('application/x-www-form-urlencoded'), caseOf('multipart/form-data'), caseOf('application/json'), caseOf('multipart/form-datax'),
    caseOf('text/plain'), fc.string()
  )
  const space = fc.constantFrom('', ' ', '\t', '  ', '\u00a0', '\n')
  const parameters = fc.oneof(fc.constant(''), fc.constant('; boundary=----x'), fc.constant(';charset=utf-8'), fc.string().map((rest) => `;${rest}`), fc.string())
  const contentType = fc.tuple(space, mediaType, space, parameters).map(([before, type, after, rest]) => `${before}${type}${after}${rest}`)
  let forms = 0
  fc.assert(fc.property(contentType, (value) => {
    const expected = byTheRule(value)
    if (expected !== undefined) forms++
    return formKind(value) === expected
  }), { numRuns: 5000 })
  t.ok(forms > 500, `form content types were generated (${forms})`)
  t.equal(formKind(undefined), undefined)
  t.equal(formKind('application/json; charset=utf-8'), undefined)
  t.equal(formKind(' Multipart/Form-Data ; boundary=abc'), 'multipart')
  t.equal(formKind('application/x-www-form-urlencoded'), 'urlencoded')
  t.end()
})
