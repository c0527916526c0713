/**
 * The dates a recorded response holds as text: `replay` gives its converters the `Date`s serving gave them, where the
 * serializer writes a `Date` as a calendar date or a time of day (decisions 0137, 0285).
 * @module
 */
import type { Occurrence } from '../values/occurrences'
import { dateFormatOf, writtenAs, type Replaced, type WrittenPlaces } from '../values/written-values'

/**
 * For a recorded copy (JSON, as converters saw it), each text at `places`' date and time places that the serializer
 * writes for a `Date`, with a `Date` it writes so: what serving puts back there (`putBack`), for replaying it.
 * @example `datesOfText(places, { at: '07:08:09' }) // [[body, 'at', '07:08:09', <a Date at 07:08:09 local time>]]`
 */
export function datesOfText (places: WrittenPlaces | undefined, body: unknown): Replaced[] {
  const dates: Replaced[] = []
  const found: Occurrence[] = []
  places?.instances?.({ '': body }, '', found)
  for (const [holder, key, node] of found) {
    const format = dateFormatOf(node)
    if (format === undefined) continue
    const text = holder[key]
    const parts = typeof text === 'string' ? (format === 'date' ? /^(\d{4})-(\d\d)-(\d\d)$/ : /^(\d\d):(\d\d):(\d\d)$/).exec(text) : null
    if (parts === null) continue
    const [first, second, third] = parts.slice(1).map(Number)
    const date = format === 'date' ? new Date(2000, second - 1, third) : new Date(2000, 0, 1, first, second, third)
    if (format === 'date') date.setFullYear(first, second - 1, third)
    if (writtenAs(format, date) === text) dates.push([holder as Record<string, unknown>, String(key), text, date])
  }
  return dates
}
