/**
 * The mutation score of the proof (docs/decisions/0074-a-corpus-of-realistic-mistakes.md): each mistake of the corpus
 * (test/fixtures/mutations/) is applied to a copy of its example app, loaded in this process; `check` runs against the
 * example's committed snapshot, then `verify` when check found nothing. The correct apps must give neither a break nor
 * a finding, every mistake must show itself to an old client (its witness), and the tools must flag at least
 * THRESHOLD % of the mistakes. The score and every miss are printed (`npm run mutation-score` prints the same).
 */
import t, { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { allowed, corpus } from './fixtures/mutations'
import { compiled, shareCompiledSchemas } from './helpers/compiled-schemas'
import { byPlace, caughtCount, measureCorpus, measureOne, mutantsFolder, mutantTypeErrors, scoreOf, scoreReport, unwitnessed, writeMutant, type Mistake, type Verdict } from './helpers/mutation-harness'

// The score measured on 2026-11-28, once check compared webhooks, QUERY routes, headers and the default version, and
// verify learned boundary values, list items, echoed round trips, headers, full replaces and fields retyped alike
// (issue 31): 93.9 % (46 of 49; 48 % when the corpus was written). The corpus then grew by 14 mistakes on webhooks,
// QUERY routes, headers and the version parameter, written before the tools ran on them (decision 0099): 93.7 %
// (59 of 63; the 49 still 46, the 14 new 13). It grew again by 13 on full replaces, status codes, GET query strings,
// defaults, converters in the middle of a chain and the users app, written blind (decision 0118): 84.2 % (64 of 76)
// before the tools learned from them, 86.8 % (66 of 76; the 63 still 59, the 13 new 7) once check reported an own
// status left to the plugin's generic answer and verify a kept field the converters set. It grew a third time by 12
// written blind over both apps (decision 0214: enum lookups, totals, version lists, nulls, reused names, webhooks,
// upserts, error bodies): 85.2 % (75 of 88; the 76 still 66, the 12 new 9); then 86.4 % (76 of 88) once verify sent
// an invalid request per route and version and checked its 400 against the documents (decision 0215: the error
// handler's own body). It grew a fourth time by 12 written blind over both apps (decision 0222: ids given a prefix, a
// cursor, an enum member renamed, a resource split, a field moved into metadata, a field added with a default, a path
// renamed, a change bound to the released version, a converter bound to one route, a middle converter written against
// HEAD's names, a webhook's total converted twice, a list ordered by value): 85 % (85 of 100; the 88 still 76, the 12
// new 9); then 84 % (84 of 100) once the start-up's usage check stopped refusing a correct converter on a schema only
// an older version's existedAs field holds (it had refused the resource split for a reason not its harm); then 85 %
// (85 of 100) once verify reported a place two converters of one version change both wrote (decision 0223: the
// webhook's total converted twice); then 86 % (86 of 100) once verify found an old version's existedAs field no
// converter writes (decision 0224: a payment method older invoices lost); 85 % (85 of 100) once that rule was withdrawn
// (a false red on the documented removal of an optional field). It grew a fifth time by 12 written blind over both
// apps (decision 0226: converters refactored (a helper extracted, by-schema made by-path, two changes merged, a
// converter moved to another change, converters returning their body), amounts in currencies without cents, and
// HEAD's handlers and schemas tightened on the request side): 81.3 % (91 of 112; the 100 still 85, the 12 new 6);
// then 82.1 % (92 of 112) once verify compared a schema across the routes and webhooks carrying it (decision 0230:
// amounts converted route by route and not in the webhook), and 83.9 % (94 of 112) once it also tried the strings
// converters compare against (decision 0229: both currency branches), asserted rounded down. It grew a sixth time by
// 12 written blind over both apps (decision 0233: a sub-schema shared by two parents, a union member's field renamed,
// error bodies, a field renamed and retyped, list items merged, a webhook's nested object, a search's default, a
// converter that depends on another field, a sunset date): 79 % (98 of 124; the 112 still 94, the 12 new 4); then
// 79.8 % (99 of 124) once check reported a first sunset already past as a break (the sunset typed a year early),
// asserted rounded down. It grew a seventh time by 12 written blind over both apps (decision 0156: strings compared,
// spaced and joined, a page reversed, a clamp with max for min, an enum member a search does not widen to, a status
// instructed on one of two routes, fields moved into nested objects, a field made null, a webhook's lines emptied):
// 77.9 % (106 of 136; the 124 still 99, the 12 new 7), asserted rounded down; then 77.2 % (105 of 136) once verify
// stopped reporting a list a converter reorders as losing its items' fields (the page reversed had been caught by that
// false finding only: a correct reversal got it too), asserted rounded down. It grew an eighth time by 12 written
// blind over both apps (decision 0167: lines embedded as a list object, an event's invoice moved up, a webhook sent
// from a shared helper, a search's id made a list, an action answering 204, a brand narrowed to an enum, an internal
// list misread, one rename table used both ways, a boolean read from a header's text, an email moved into an object,
// a maximum instructed on responses only, validation errors answered 422): 75.6 % (112 of 148: 75.7 %; the 136 still
// 105, the 12 new 7), asserted rounded down; 76.3 % (113 of 148: 76.4 %) once verify took a 422 naming what its
// invalid request got wrong for validation's (decision 0174: validation errors answered 422), asserted rounded down;
// 77 % (114 of 148) once verify judged joins of several fields (decision 0185: an address's lines joined with an
// absent one), asserted rounded down.
// It grew a ninth time by 12 written blind over both apps (decision 0193: a memo split into lines and joined with
// spaces, a free line's 0 tested for truth, a page cut before its filters, an isApplied read the wrong way round, an
// expandable customer, an error's content type, a free invoice created paid, a cross-field rule not instructed, an
// optional email instructed on requests only, converters crossed between a union's members, a total moved into an
// amount without its currency, a line's description made optional with nothing filling it): 75.6 % (121 of 160: 75.625 %;
// the 148 still 114, the 12 new 7), asserted rounded down; 76.2 % (122 of 160: 76.25 %) once check compared a rule a
// request schema gains (decision 0196: the cross-field rule not instructed), asserted rounded down.
// It grew a tenth time by 12 written blind over both apps (decision 0213: address ids numbered, a time helper called
// the wrong way, discount lines spliced while iterating, line renames destructured the wrong way round, deleted
// customers read as tombstones, a full page read as more, a payment key of an absent header, a converter bound to a
// union, a 400 mapped back too widely, explicit nulls, a deprecation on the wrong version, an old type without its
// minimum): 76.1 % (131 of 172: 76.16 %; the 160 still 122, the 12 new 9), asserted rounded down.
// It grew an eleventh time by 12 written blind over both apps (decision 0283: a total formatted with the locale's
// grouping and read back with parseFloat, a shared constant a later converter rewrites, list items mapped without a
// return, an error converter keeping HEAD's status, lines left out of searches, a deleted user's 410, defaults spread
// over the client's values, a response header renamed the wrong way round, a deprecation written on the older
// versions, an event time made ISO without its old type, idempotency keys expired by seconds against milliseconds, a
// read cached by URL for every version): 75.5 % (139 of 184: 75.54 %; the 172 still 131, the 12 new 8), asserted
// rounded down.
// It grew a twelfth time by 12 written blind over both apps (decision 0289: a local wall-clock time read back as UTC,
// a total summed in currency units and floored, a decimal amount converted with a pair copied the wrong way round, a
// new address put first where the first is the default, the first line of an invoice converted alone, an enum member
// spliced in at index -1, a search's maximum lowered with nothing clamping older limits, a change bound to the
// released version, a key's pattern not instructed, a union member instructed on the payment request only, a required
// country nothing fills for older versions, a webhook rendered in the payer's version): 75 % (147 of 196; the 184
// still 139, the 12 new 8), exact; 75.5 % (148 of 196: 75.51 %) once check broke on a deprecation lifted by the next
// version (decision 0291: the memo deprecated in the older versions), asserted rounded down; 76 % (149 of 196:
// 76.02 %) once check broke on a version's end announced while an older one's is not (decision 0287: the single
// address's end written on the line of 2001-01-01), asserted rounded down.
// It grew a thirteenth time by 12 written blind over both apps (decision 0292: a default address made an object by a
// converter that rebuilds the body mid-chain, a validation error's code renamed, emails joined into one field, VAT
// added to the total older versions read, an event's milliseconds converted on the invoice's schema, a part payment
// shown as paid, a search's newest-first default reaching older versions, a SEPA debit shown as a bank account without
// its bank name, lines sorted in HEAD, an invoice's currency dropped for the customer's, hasMore renamed lastPage and
// not negated, a refusal's status instructed with had({ statusCode })): 74 % (154 of 208: 74.04 %; the 196 still
// 149, the 12 new 5), asserted rounded down; 74.5 % (155 of 208: 74.52 %) once verify held the plugin's 400 to the
// code it names (decision 0299: the validation error's code renamed), asserted rounded down; 74.7 % (157 of 210:
// 74.76 %) once the corpus held two updates an old client sends, caught by verify (decisions 0295 and 0301: a PATCH
// given the create's converters, an address's country reset by a nested PATCH), asserted rounded down.
// It grew a fourteenth time by 12 written blind over both apps (decision 0306: the invoice.paid webhook renamed and the
// old event never rendered, an event's data.object flattened and instructed as a rename, a mononym's null family name
// given older versions as '', customer ids prefixed with the search's filter left bare, invoice ids prefixed with the
// pay route's path left strict, addresses keyed by id listed back without their ids, last4 renamed and instructed on
// cards only, a card's brand renamed with the decorators on each other's methods, a search filter renamed and
// converted the wrong way round, a customer's email made unique in HEAD, a currency required with usd for older
// customers, a house number required in HEAD): 75.2 % (167 of 222: 75.23 %; the 210 still 157, the 12 new 10),
// asserted rounded down; still 75.2 % (167 of 222) once verify echoed into a field made nullable and check judged a
// length bound by the lengths a format implies (decision 0312: the prefixed ids caught by verify, not check).
// It grew a fifteenth time by 12 written blind over both apps (decision 0316: address ids prefixed and stripped one
// character short, an ISO event time read back with getSeconds(), a rename's converter decorated with the search's
// schema, a rename's delete before its copy, null clearing a memo a replace without one keeps, a locale defaulted over
// a stored one, a thin webhook event, a union member's new required field, a currency renamed and instructed
// didntExist, a moved field's former field declared without its optional, currencies narrowed and emails masked in
// HEAD): 75.2 % (176 of 234: 75.21 %; the 222 still 167, the 12 new 9), asserted rounded down.
// 74.7 % (175 of 234: 74.79 %) once verify stopped replaying an id pattern's bare prefix (decision 0311): the one
// catch lost, invoice ids prefixed with the pay route's path left strict, rested on a finding its corrected change got
// too (HEAD's 'in_' stripped to ''); its harm is the handler's, and replay --handlers still catches it. No mistake is
// let through that a true finding caught.
// It grew a sixteenth time by 12 written blind over both apps (decision 0315: a new route's rename converted by path on
// the list only, a user read with its default address only in HEAD, a line's amount read back undivided, a count read
// back as hasMore against the default page, an idempotency key moved into the body from a header already renamed, a
// boolean made an enum and mapped the wrong way round, a rename's request converter bound to the create route, a
// request converter forgotten, a behaviour change with no isApplied, a new route instructed with the GET's method, a
// new required field instructed on the response only, a 409 for giving up on a paid invoice in HEAD): 74.3 % (183 of
// 246: 74.39 %; the 234 still 176, the 12 new 7), asserted rounded down; 73.9 % (182 of 246: 73.98 %) with decision
// 0311 above (measured on the 234 at 175 before), asserted rounded down; 74.3 % (183 of 246: 74.39 %) once verify
// found a request converter reading a name an older change renamed (decision 0320: the idempotency key), asserted
// rounded down.
// It grew a seventeenth time by 12 written blind over both apps (decision 0323: a search served to POST beside a
// converter bound to QUERY, a memo wrapped into a list when absent, defaults HEAD's validation fills, a replace keeping
// a family name, a phone instructed on the response only, a rename in HEAD's own change, union members told apart by
// an old name, a filter(Boolean) refactor, a request converter left out, a join city first, statuses moved into
// exclude): 74 % (191 of 258: 74.03 %; the 246 still 183, the 12 new 8, one by check's default added to a request
// field), asserted rounded down; 76 % (196 of 258: 75.97 %) once check broke on a status a released version's operation
// newly documents (decision 0328: a reused idempotency key's 409, a paid invoice's 409, a known email's 409, a paid
// invoice's giving up refused 409 and a deleted user's 410, all documented in HEAD), asserted rounded down.
// It grew an eighteenth time by 12 written blind over both apps (decision 0329: a version change passed to no version,
// a rename instructed without its converter, a behaviour change applied where data is stored, a trim in a route's
// preValidation hook, a new route leaving a user without an address, a Map's forEach read as (key, value), a free
// invoice's 0 taken for absent, a full replace's pointer to a list's items, a memo's old maximum instructed on the
// request only, a pattern added to HEAD, a rename helper called backwards, a 409 for paying an invoice older versions
// see open): 73.3 % (198 of 270: 73.33 %; the 258 still 191, the 12 new 7), measured before decision 0328 (above)
// merged; with it, 75.5 % (204 of 270: 75.56 %; the 12 new 8, the 409 for paying an invoice older versions see open
// caught by check), asserted rounded down.
// It grew a nineteenth time by 12 written blind over both apps (decision 0337: the oldest version retired by deleting
// its line, an old type shared between a creation and a read that loses the creation's minimum, a user read sent as
// the text of the route's compiled serializer, the health check moved into the versioned routes, a body limit counted
// in bytes, a middle name older full names are joined without, memos made Markdown and stripped of its marks for
// older versions, a display name declared derivedFrom the names, an export written as HEAD's records, bank names made
// ids from a list, a helper's two string arguments in each other's place, an invoice answered as CSV unless JSON is
// asked for): 74.4 % (210 of 282: 74.47 %; the 270 still 204, the 12 new 6, the middle name for another harm it does),
// asserted rounded down; 74.8 % (211 of 282: 74.82 %) once verify's lines strings held the marks text formats strip
// (decision 0338: the memos stripped of Markdown's marks), asserted rounded down; 75.9 % (214 of 282: 75.89 %) once
// verify found HEAD's default given to older clients that cannot send the field (decision 0340: the search's
// newest-first default, a user's address pages, the internal list defaulted to []); 77.7 % (219 of 282: 77.66 %) once
// verify checked a number's unit its description states (decision 0339: four event times and a decimal amount),
// asserted rounded down.
// Raise it as the tools learn; the goal is 95 %. Never lower it to let a mistake through: fix the tool, or say in the
// docs what it misses (a corpus grown blind measures the proof anew: that is not lowering it).
const THRESHOLD = 77.6
// With the example's recorded traffic replayed (examples/traffic.ts, recorded once from each correct app) through the
// converters and, since decision 0234, the handlers of fresh apps of the mutant, as a team replays its own in CI: 98 % (48 of 49), then 96.8 % (61 of 63) once the corpus grew: recorded exchanges hold no
// webhook; then 90.8 % (69 of 76): recorded exchanges hold no PUT that leaves a field out, nor a list longer than
// four; then 94.7 % (72 of 76) once the example's handler tests below counted too; then 92 % (81 of 88) once the
// corpus grew blind (decision 0214: neither traffic nor the handler tests catch its 3 misses, which hold no unknown
// id and no refused request); then 93.2 % (82 of 88) once verify checked error bodies (decision 0215); then 91 % (91
// of 100) once the corpus grew blind again (decision 0222: neither traffic nor the handler tests catch its 3 misses: a
// list's order, a cursor's hasMore, a webhook's total); then 90 % (90 of 100) once the usage check's false refusal
// was fixed (above); then 91 % (91 of 100) once verify reported a place converted twice (decision 0223); then 92 %
// (92 of 100) once verify found an old version's field no converter writes (decision 0224); 91 % (91 of 100) once that
// rule was withdrawn; 86.6 % (97 of 112) once the corpus grew blind a fifth time (decision 0226: neither traffic
// nor the handler tests catch its 6 misses: no recorded invoice is in yen, no recorded exchange holds a webhook, and
// the other three are the handlers'); 89.3 % (100 of 112) once verify compared a schema across its carriers (decision
// 0230) and tried the strings converters compare against (decision 0229), asserted rounded down; 84.7 % (105 of 124)
// once the corpus grew blind a sixth time (decision 0233: the replay catches none of its 8 misses, the handler tests
// one); 85.5 % (106 of 124) once check reported a first sunset already past, asserted rounded down; 88.7 % (110 of
// 124) once the traffic was also sent to the handlers of fresh apps of each mutant (decision 0234: a currency stored
// upper-cased, and three mistakes of a new version the converters' replay stops before: hasMore from a null cursor,
// the payment method moved out, the total converted back from the amount due); still 88.7 % (110 of 124) once the
// traffic was recorded with everyVersion (decision 0237: every client's exchange, the PUTs and the newest clients'
// customers included; its PUTs replace existing customers with their own email, so neither the upsert nor the email a
// replace keeps shows; the one more mistake it first "caught" was a false finding, fixed: headData); 90.3 % (112 of
// 124) on 2026-11-30, twice alike, once the traffic held the billing app's invoice.paid renders, recorded with a
// subscriber pinned to each of its four versions as its production configuration has them (decision 0238; no client
// changed), and replay --handlers compared the fresh apps' renders with them, keeping a Unix time's unit: the
// webhook's time made milliseconds and the event built from the invoice as found; 88.9 % (121 of 136) once the corpus
// grew blind a seventh time (decision 0156: replay --handlers catches 2 of its 5 misses, a search for paid invoices
// that no longer finds one paid by bank debit and the invoice.paid event's lines emptied), asserted rounded down;
// 88.2 % (120 of 136) once verify stopped reporting a reordered list's items as lost (the page reversed, above);
// 87.1 % (129 of 148: 87.2 %) once the corpus grew blind an eighth time (decision 0167: replay --handlers catches 2
// of its 5 misses, the default address created twice and hasMore read from the header's text), asserted rounded down;
// 87.8 % (130 of 148) once verify found validation errors answered 422 (decision 0174), asserted rounded down;
// 88.5 % (131 of 148) once replay --handlers reported a webhook rendered where none was recorded (decision 0177:
// the invoice.paid sent when an invoice is given up); 89.1 % (132 of 148: 89.2 %) once verify judged joins of several
// fields (decision 0185), asserted rounded down.
// 88.1 % (141 of 160: 88.125 %) once the corpus grew blind a ninth time (decision 0193: replay --handlers catches 2 of
// its 5 misses, a search that pages before it filters and a 404's content type), asserted rounded down; 88.7 % (142
// of 160: 88.75 %) once check compared a rule a request schema gains (decision 0196), asserted rounded down.
// 87.7 % (151 of 172: 87.79 %) once the corpus grew blind a tenth time (decision 0213: the replay catches none of its
// 3 misses), asserted rounded down; 88.3 % (152 of 172: 88.37 %) once replay --handlers reported a millisecond time
// multiplied by 1000 again where seconds were recorded (the time helper called the wrong way), asserted rounded down.
// 87.5 % (161 of 184) once the corpus grew blind an eleventh time (decision 0283: replay --handlers catches 1 of its 4
// misses, a user read cached by URL and answered to another version), exact.
// 87.2 % (171 of 196: 87.24 %) once the corpus grew blind a twelfth time (decision 0289: replay --handlers catches 2
// of its 4 misses, a total floored in currency units and a decimal amount converted with a swapped pair), asserted
// rounded down.
// 87.7 % (172 of 196: 87.76 %) once replay --handlers reported a subscriber rendered in each paying request's version
// (decision 0290: the invoice.paid event rendered in the payer's version), asserted rounded down.
// 88.2 % (173 of 196: 88.27 %) once check also broke on a deprecation the next version lifts (decision 0291: the
// memo deprecated on the older versions, also caught with traffic), asserted rounded down; 88.7 % (174 of 196:
// 88.78 %) once check broke on a version's end announced while an older one's is not (decision 0287), asserted
// rounded down.
// 87.5 % (182 of 208) once the corpus grew blind a thirteenth time (decision 0292: replay --handlers catches 3 of its
// 7 misses, the event's milliseconds, the sorted lines and the hasMore not negated), exact; 87.9 % (183 of 208:
// 87.98 %) once verify held the plugin's 400 to the code it names (decision 0299), asserted rounded down; 88 % (185 of
// 210: 88.09 %) with the two updates of decisions 0295 and 0301, asserted rounded down.
// 88.7 % (197 of 222: 88.74 %) once the corpus grew blind a fourteenth time (decision 0306: replay --handlers catches
// both of its 2 misses, the old event never rendered and a customer's known email refused 409), asserted rounded down.
// 92.3 % (205 of 222: 92.34 %) once the example's clients made the traffic of a month (examples/traffic.ts: a
// customer's two or three invoices searched with and without filters and a page of two, a retried create, a user's
// addresses listed, refused requests): replay --handlers catches 8 more, 6 by a list of several items (orders, a full
// page's hasMore, a search without statuses), 1 by the converters' replay (addresses sorted on the way down), 1 by the
// retry (keys expired by seconds against milliseconds); the refusals catch none. Asserted rounded down.
// 92.7 % (217 of 234: 92.73 %) once the corpus grew blind a fifteenth time (decision 0316: the handler tests and
// replay --handlers catch all 3 of its misses, the getSeconds() time, the memo a replace keeps and the masked email),
// asserted rounded down.
// 92.2 % (227 of 246: 92.28 %) once the corpus grew blind a sixteenth time (decision 0315: replay --handlers catches
// 3 of its 5 misses, the user read with one address, the count read back as hasMore and the idempotency key read from
// a header already renamed), asserted rounded down; the same 227 with decision 0320 (the key, which verify now
// catches, was among the traffic's).
// 92.6 % (239 of 258: 92.63 %) once the corpus grew blind a seventeenth time (decision 0323: the handler tests and
// replay --handlers catch all 4 of its misses and the default check now breaks on), asserted rounded down.
// 94.2 % (243 of 258: 94.19 %) once check broke on a status a released version's operation newly documents (decision
// 0328: 4 of its 5 were missed by the traffic too, which neither reuses a key, pays twice, gives up on a paid invoice
// nor deletes a user), asserted rounded down.
// 91.8 % (248 of 270: 91.85 %) once the corpus grew blind an eighteenth time (decision 0329: replay --handlers catches
// 2 of its 5 misses, the trim in a preValidation hook and the Map's forEach read as (key, value)), measured before
// decision 0328 merged; with it, 93.7 % (253 of 270: 93.70 %), asserted rounded down.
// 92.9 % (262 of 282: 92.91 %) once the corpus grew blind a nineteenth time (decision 0337: replay --handlers catches
// 3 of its 6 misses, the user read sent as the newest version's text, the helper's arguments in each other's place
// and the invoice answered as CSV), asserted rounded down; 93.2 % (263 of 282: 93.26 %) with decision 0338 (above),
// asserted rounded down; 93.6 % (264 of 282: 93.62 %) with decisions 0339 and 0340 (one more: a user's addresses
// paged in a new version with HEAD's default for older ones), asserted rounded down.
// The same rule: raised as the tools learn, never lowered. (It stood at 216 of 234 for a day: one loaded run of four
// gave 216. The event time given older subscribers as getSeconds() was caught by chance: when a second turned while
// the replay's two fresh applications served one pay request, its render's created differed between them and was
// left out as noise on every render. The noise is now learned from requests both served within one second: 217 again,
// under load too.)
const WITH_TRAFFIC = 93.6
// With the example's own tests that run its handlers (test/helpers/example-tests.ts: replaceFromEveryVersion on a
// customer it stores, readWebhookDelivery on each invoice.paid it sends), as a team's suite runs them in CI: the
// mistakes only a handler shows (keeps declared and not kept, PUT made a merge, a webhook sent as HEAD builds it).
// 90.8 % (69 of 76) on 2026-11-29; 88.6 % (78 of 88) once the corpus grew blind (decision 0214), asserted rounded
// down; 89.8 % (79 of 88) once verify checked error bodies (decision 0215); 88 % (88 of 100) once the corpus grew
// blind again (decision 0222); 87 % (87 of 100) once the usage check's false refusal was fixed (above); 88 % (88 of
// 100) once verify reported a place converted twice (decision 0223); 89 % (89 of 100) once verify found an old
// version's field no converter writes (decision 0224); 88 % (88 of 100) once that rule was withdrawn; 83.9 % (94 of
// 112) once the corpus grew blind a fifth time (decision 0226); 86.6 % (97 of 112) once verify compared a schema
// across its carriers (decision 0230) and tried the strings converters compare against (decision 0229), asserted
// rounded down; 82.3 % (102 of 124) once the corpus grew blind a sixth time (decision 0233: they catch the memo
// stored as '', as a replace that keeps a memo it was not sent); 83.1 % (103 of 124) once check reported a first
// sunset already past, asserted rounded down; 80.8 % (110 of 136) once the corpus grew blind a seventh time
// (decision 0156: they catch none of its 5 misses), asserted rounded down; 80.1 % (109 of 136) once verify stopped
// reporting a reordered list's items as lost (the page reversed, above); 78.3 % (116 of 148: 78.4 %) once the corpus
// grew blind an eighth time (decision 0167: they catch none of its 5 misses), asserted rounded down; 79 % (117 of
// 148: 79.1 %) once verify found validation errors answered 422 (decision 0174), asserted rounded down; 79.7 % (118
// of 148) once verify judged joins of several fields (decision 0185), asserted rounded down. The traffic
// figure above counts them too.
// 78.1 % (125 of 160: 78.125 %) once the corpus grew blind a ninth time (decision 0193: they catch none of its 5
// misses), asserted rounded down; 78.7 % (126 of 160: 78.75 %) once check compared a rule a request schema gains
// (decision 0196), asserted rounded down. The traffic figure above counts them too.
// 78.4 % (135 of 172: 78.49 %) once the corpus grew blind a tenth time (decision 0213: they catch none of its 3
// misses), asserted rounded down.
// 77.7 % (143 of 184: 77.72 %) once the corpus grew blind an eleventh time (decision 0283: they catch none of its 4
// misses), asserted rounded down.
// 77 % (151 of 196: 77.04 %) once the corpus grew blind a twelfth time (decision 0289: they catch none of its 4
// misses), asserted rounded down; 77.5 % (152 of 196: 77.55 %) once check broke on a deprecation lifted by the next
// version (decision 0291), asserted rounded down; 78 % (153 of 196: 78.06 %) once check broke on a version's end
// announced while an older one's is not (decision 0287), asserted rounded down.
// 75.9 % (158 of 208: 75.96 %) once the corpus grew blind a thirteenth time (decision 0292: they catch none of its 7
// misses), asserted rounded down; 76.4 % (159 of 208: 76.44 %) once verify held the plugin's 400 to the code it
// names (decision 0299), asserted rounded down; 76.6 % (161 of 210: 76.66 %) with the two updates of decisions 0295
// and 0301, asserted rounded down.
// 77 % (171 of 222: 77.03 %) once the corpus grew blind a fourteenth time (decision 0306: they catch neither of its 2
// misses), asserted rounded down.
// 77.3 % (181 of 234: 77.35 %) once the corpus grew blind a fifteenth time (decision 0316: they catch 1 of its 3
// misses, the memo a replace without one keeps), asserted rounded down.
// 76.4 % (188 of 246: 76.42 %) once the corpus grew blind a sixteenth time (decision 0315: they catch none of its 5
// misses), asserted rounded down; 76 % (187 of 246: 76.01 %) with decision 0311 (above); 76.4 % (188 of 246: 76.42 %)
// with decision 0320 (above), asserted rounded down.
// 76.7 % (198 of 258: 76.74 %) once the corpus grew blind a seventeenth time (decision 0323: they catch 2 of its 4
// misses, the family name a replace keeps and the phone instructed on the response only), asserted rounded down.
// 78.7 % (203 of 258: 78.68 %) once check broke on a status a released version's operation newly documents (decision
// 0328), asserted rounded down.
// 75.9 % (205 of 270: 75.93 %) once the corpus grew blind an eighteenth time (decision 0329: they catch none of its 5
// misses), measured before decision 0328 merged; with it, 78.1 % (211 of 270: 78.15 %), asserted rounded down.
// 76.9 % (217 of 282: 76.95 %) once the corpus grew blind a nineteenth time (decision 0337: they catch none of its 6
// misses), asserted rounded down; 77.3 % (218 of 282: 77.30 %) with decision 0338 (above), asserted rounded down;
// 80.1 % (226 of 282: 80.14 %) with decisions 0339 and 0340 (above), asserted rounded down.
// The same rule.
const WITH_HANDLERS = 80.1
// verify's examples per route, version, direction and part: fewer than the command's 200, for speed (the same score
// at 20 and at 200 when this was measured).
const EXAMPLES = 20
const base = mutantsFolder('mutants')

// About 270 apps started, checked, verified and replayed: 140 s alone on 2 quiet cores, 330 s beside other work at a
// load of 13 (which the 300 s this was failed); 600 s left room for a machine 2–3 times slower, until it expired three
// times in one day beside four other sessions' tests (load 10–30) with nothing wrong: 900 s.
t.setTimeout(900_000)

test('the corpus: at least 40 mistakes, each with its own id, over every kind and surface the proof must cover', async (t) => {
  t.ok(corpus.length >= 40, `${corpus.length} mistakes`)
  t.equal(new Set(corpus.map((mistake) => mistake.id)).size, corpus.length, 'ids are unique')
  t.same(corpus.filter((mistake) => !mistake.id.startsWith(`${mistake.app}/`)).map((mistake) => mistake.id), [], 'each id names its app')
  t.same(corpus.filter((mistake) => mistake.edits.length === 0 || mistake.witness.exchanges.length === 0).map((mistake) => mistake.id), [],
    'each mistake has edits and a witness')
  const kinds = new Set(corpus.map((mistake) => mistake.kind))
  t.same([...kinds].sort(), ['contract', 'instruction', 'lossy', 'partial', 'skipped', 'swapped'])
  const surfaces = new Set(corpus.map((mistake) => mistake.surface))
  for (const surface of ['request', 'response', 'webhook', 'query', 'enum', 'nested', 'union', 'header', 'endpoint', 'put', 'version', 'status', 'params', 'default'] as const) {
    t.ok(surfaces.has(surface), `a mistake on ${surface}`)
  }
})

test('the correct example apps: check, verify, the example\'s handler tests and the replay of their recorded traffic report nothing', async (t) => {
  for (const app of ['users', 'billing'] as const) {
    const verdict = await measureOne(app, undefined, { base, examples: EXAMPLES, both: true, handlers: true, traffic: true })
    t.equal(verdict.breaks, 0, `${app}: no break ${verdict.detail}`)
    t.equal(verdict.findings, 0, `${app}: no finding ${verdict.detail}`)
  }
})

test('changes the policy allows (a new optional response field, a new endpoint, a field renamed in a new version): neither check, verify, the example\'s handler tests nor the replay of traffic recorded before them fails CI on them', async (t) => {
  t.ok(allowed.length >= 2, `${allowed.length} allowed changes`)
  for (const change of allowed) {
    const verdict = await measureOne(change.app, change, { base, examples: EXAMPLES, both: true, handlers: true, traffic: true })
    t.equal(verdict.caughtBy, undefined, `${change.id}: not flagged ${verdict.detail}`)
    t.equal(verdict.breaks + verdict.findings, 0, `${change.id}: no break, no finding`)
  }
})

test('a mistake whose find text is gone, or found twice, fails loudly instead of measuring the correct app', async (t) => {
  const [first] = corpus
  const gone: Mistake = { ...first, id: 'users/rotted', edits: [{ file: 'versions.ts', find: 'text the example no longer has', replace: 'x' }] }
  await t.rejects(measureOne('users', gone, { base, examples: 1 }), /mistake users\/rotted: its find text occurs 0 times in examples\/users\/versions\.ts/)
  const twice: Mistake = { ...first, id: 'users/ambiguous', edits: [{ file: 'versions.ts', find: 'didntExist', replace: 'didntExist' }] }
  await t.rejects(measureOne('users', twice, { base, examples: 1 }), /its find text occurs [2-9] times/)
  const nothing: Mistake = { ...first, id: 'users/no-op', edits: [{ file: 'app.ts', find: 'export default buildApp', replace: 'export default buildApp' }] }
  await t.rejects(measureOne('users', nothing, { base, examples: 1 }), /an edit of app\.ts changes nothing/)
})

test('a mistake no client would notice is a defect of the corpus: its witness shows nothing', async (t) => {
  const harmless: Mistake = {
    id: 'users/comment-reworded',
    app: 'users',
    kind: 'lossy',
    surface: 'request',
    description: 'Rewords a comment.',
    edits: [{ file: 'app.ts', find: '// The command-line tools load the app from its default export', replace: '// The tools load the app from its default export' }],
    witness: { exchanges: [{ method: 'POST', url: '/users', version: '2000-01-01', payload: { address: '1 Main St' } }] }
  }
  const verdict = await measureOne('users', harmless, { base, examples: 5, witness: true })
  t.equal(verdict.caughtBy, undefined, 'nothing to catch')
  t.same(await unwitnessed([verdict], base), ['users/comment-reworded'])
})

test('verify\'s verdict on a mutant does not depend on the witness played before it: a converter handing out a module constant another changes in place', async (t) => {
  // The witness renders invoice.paid for a 2023-10-16 subscriber, whose converter rewrites the shared card in place;
  // a team's CI verifies in its own process, where nothing did.
  const mistake = corpus.find((each) => each.id === 'billing/link-payments-shown-as-one-shared-card')
  if (mistake === undefined) throw new Error('the corpus lost billing/link-payments-shown-as-one-shared-card')
  const alone = await measureOne(mistake.app, mistake, { base, examples: EXAMPLES })
  const witnessed = await measureOne(mistake.app, mistake, { base, examples: EXAMPLES, witness: true })
  t.equal(alone.caughtBy, 'verify', alone.detail)
  t.same([witnessed.caughtBy, witnessed.findings, witnessed.detail], [alone.caughtBy, alone.findings, alone.detail], 'the same verdict, findings and first finding')
})

test('the apps share a validator of a schema holding $id or $ref only with apps that compiled the same schemas before it', async (t) => {
  // Ajv told to keep the $ids it compiles (Fastify's default does not): /pair's `$ref` then resolves to the $id
  // /thing's schema declared, and its one text means another validator in each app.
  const appOf = async (type: string, share: boolean): Promise<FastifyInstance> => {
    const app = Fastify({ ajv: { customOptions: { addUsedSchema: true } } })
    app.post('/thing', { schema: { body: { $id: 'SharedHistoryThing', type: 'object', properties: { a: { type } } } } }, async () => 'ok')
    app.post('/pair', { schema: { body: { type: 'object', properties: { thing: { $ref: 'SharedHistoryThing#' } } } } }, async () => 'ok')
    if (share) shareCompiledSchemas(app)
    await app.ready()
    return app
  }
  const answer = async (app: FastifyInstance): Promise<number> => {
    try {
      return (await app.inject({ method: 'POST', url: '/pair', payload: { thing: { a: 'x' } } })).statusCode
    } finally {
      await app.close()
    }
  }
  for (const [round, type] of ['string', 'number', 'string', 'number'].entries()) {
    const before = { ...compiled }
    const shared = await answer(await appOf(type, true))
    t.equal(shared, await answer(await appOf(type, false)), `a ${type} app answers as its own compiler would (${shared})`)
    if (round === 1) t.equal(compiled.own - before.own, 2, 'the number app compiles both schemas: the first differs, and so the history of the second')
    if (round >= 2) t.same([compiled.own - before.own, compiled.shared - before.shared], [0, 2], `the second ${type} app compiles nothing`)
  }
})

test('the report: the score, by kind, by place and by tool, and every miss with what an old client sees', async (t) => {
  const mistake = (id: string, kind: Mistake['kind'], file: string): Mistake =>
    ({ ...corpus[0], id, kind, description: `${id} happened.`, edits: [{ file, find: 'a', replace: 'b' }] })
  const verdict = (id: string, kind: Mistake['kind'], caughtBy: Verdict['caughtBy'], file = 'versions.ts'): Verdict =>
    ({ mistake: mistake(id, kind, file), app: 'users', caughtBy, detail: '', breaks: 0, findings: 0, milliseconds: 1, answers: undefined })
  const verdicts = [verdict('users/a', 'lossy', 'verify'), verdict('users/b', 'lossy', undefined, 'app.ts'), verdict('users/c', 'contract', 'check', 'schemas.ts')]
  t.equal(scoreOf(verdicts), 66.7)
  t.same(scoreReport(verdicts), [
    'mutation score: 66.7 % (2 of 3 mistakes caught by check and verify)',
    'by kind: lossy 1/2, contract 1/1',
    'by place: version changes and schemas 2/2, routes and handlers only 0/1',
    'caught by: start-up 0, check 1, verify 1, handlers 0, replay 0',
    'missed by check and verify (1):',
    '- users/b: users/b happened.'
  ])
  // A mistake only the replayed traffic catches counts apart: the proof's score is check's and verify's.
  const replayed = [...verdicts, verdict('users/d', 'swapped', 'replay')]
  t.equal(scoreOf(replayed), 50)
  t.equal(scoreOf(replayed, 'replay'), 75)
  t.same(scoreReport(replayed), [
    'mutation score: 50 % (2 of 4 mistakes caught by check and verify)',
    'with the example\'s recorded traffic replayed: 75 % (3 of 4)',
    'by kind: lossy 1/2, contract 1/1, swapped 0/1',
    'by place: version changes and schemas 2/3, routes and handlers only 0/1',
    'caught by: start-up 0, check 1, verify 1, handlers 0, replay 1',
    'missed by check and verify (2):',
    '- users/b: users/b happened.',
    '- users/d: users/d happened. (the replayed traffic catches it)'
  ])
  // One the example's handler tests catch counts in the second figure, and in the third.
  const tested = [...replayed, verdict('users/e', 'skipped', 'handlers')]
  t.same([scoreOf(tested), scoreOf(tested, 'handlers'), scoreOf(tested, 'replay')], [40, 60, 80])
  t.same(scoreReport(tested).slice(0, 4), [
    'mutation score: 40 % (2 of 5 mistakes caught by check and verify)',
    'with the example\'s handler tests: 60 % (3 of 5)',
    'with the example\'s recorded traffic replayed: 80 % (4 of 5)',
    'by kind: lossy 1/2, contract 1/1, swapped 0/1, skipped 0/1'
  ])
  t.equal(scoreReport(tested).at(-1), '- users/e: users/e happened. (the example\'s handler tests catch it)')
})

test(`check and verify flag at least ${THRESHOLD} % of the corpus, ${WITH_HANDLERS} % with the example's handler tests, ${WITH_TRAFFIC} % with the recorded traffic replayed; every mistake shows itself to an old client`, async (t) => {
  // tsc type-checks the mutants (in \`base\`, beside the ones the tests above wrote) while the corpus is measured, in a
  // folder of its own: the file waited for tsc, about 13 CPU-seconds, after the measurement.
  for (const mistake of corpus) await writeMutant(mistake.app, mistake, join(base, mistake.id.replace(/\//g, '-')))
  const typeErrors = mutantTypeErrors(base)
  const measured = mutantsFolder('mutants-measured')
  const verdicts = await measureCorpus(corpus, { base: measured, examples: EXAMPLES, witness: true, handlers: true, traffic: true })
  for (const line of scoreReport(verdicts)) t.comment(line)
  t.same(await unwitnessed(verdicts, measured), [], "each mistake's witness tells the mistaken app from the correct one")
  t.equal(await typeErrors, undefined, 'every mistake compiles, as the code a team commits does')
  t.ok(scoreOf(verdicts) >= THRESHOLD, `score ${scoreOf(verdicts)} % ≥ ${THRESHOLD} %`)
  t.ok(scoreOf(verdicts, 'handlers') >= WITH_HANDLERS, `with the example's handler tests ${scoreOf(verdicts, 'handlers')} % ≥ ${WITH_HANDLERS} %`)
  t.ok(scoreOf(verdicts, 'replay') >= WITH_TRAFFIC, `with traffic ${scoreOf(verdicts, 'replay')} % ≥ ${WITH_TRAFFIC} %`)
  // The figures a reader trusts are the ones measured here: the README and the CI guide say them, the guide's table
  // with its counts (a session once left the guide's summary a corpus behind).
  const measuredFigures = (['proof', 'handlers', 'replay'] as const).map((counted) => `**${scoreOf(verdicts, counted)} %`)
  for (const file of ['README.md', 'docs/ci-check-and-verify.md']) {
    const text = readFileSync(join(__dirname, '..', file), 'utf8')
    t.same(measuredFigures.filter((figure) => !text.includes(figure)), [], `${file} says the measured scores`)
    t.same([...text.matchAll(/On (\d+) realistic mistakes/g)].map((match) => Number(match[1])).filter((size) => size !== corpus.length), [],
      `${file} names the corpus's size, ${corpus.length}`)
  }
  const guide = readFileSync(join(__dirname, '..', 'docs/ci-check-and-verify.md'), 'utf8')
  const table = [...guide.slice(guide.indexOf('## What the proof catches')).matchAll(/\*\*([\d.]+) % \((\d+) of (\d+)\)\*\*/g)].slice(0, 3)
  t.same(table.map((match) => match.slice(1).join(' ')), (['proof', 'handlers', 'replay'] as const).map((counted) =>
    `${scoreOf(verdicts, counted)} ${caughtCount(verdicts, counted)} ${corpus.length}`), "the guide's table: the scores and counts measured")
  t.same(byPlace(verdicts).filter(({ caught, of }) => !guide.includes(`(${caught} of ${of})`)), [], 'the guide says what check and verify catch by place')
  // One row a mistake missed: a row left behind when a mistake is caught reads as a miss (a session once left one).
  const missed = guide.slice(guide.indexOf('What `check` and `verify` miss, every one'), guide.indexOf('Each of these needs the application'))
  t.equal(missed.split('\n').filter((line) => line.startsWith('| ')).length - 1, corpus.length - caughtCount(verdicts, 'proof'),
    "the guide's table of misses has a row for each mistake check and verify miss")
})
