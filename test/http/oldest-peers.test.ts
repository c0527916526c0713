/**
 * The oldest peers package.json claims, Fastify 5.0.0 and TypeBox 0.34.0 (dev dependencies under the aliases
 * `fastify-oldest` and `typebox-oldest`), serve the example apps as the newest do: every exchange of their clients'
 * traffic, the answers to client mistakes, each version's OpenAPI document (the same bytes) and a body declared by
 * media type give the same answers, and check (and verify of the users example) pass there
 * (docs/decisions/0220-the-oldest-peers-in-the-suite.md).
 */
import { test, type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { observe, observeOnOldestPeers } from '../helpers/oldest-peers'

const ROOT = join(__dirname, '..', '..')

interface Manifest {
  peerDependencies: Record<string, string>
  devDependencies: Record<string, string>
}

/** The peers' oldest versions the range allows (`^5.0.0`: `5.0.0`), as `name@version`, sorted. */
function oldestPeers (): string[] {
  const { peerDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest
  return Object.entries(peerDependencies).map(([name, range]) => `${name}@${range.replace(/^\^/, '')}`).sort()
}

/** The first item of `oldest` unlike `newest`'s at its place: the same, or both lists' lengths differ. */
function sameItems (t: Test, oldest: readonly unknown[], newest: readonly unknown[], what: string): void {
  t.equal(oldest.length, newest.length, `as many ${what} on the oldest peers as on the newest`)
  const at = oldest.findIndex((item, index) => !isDeepStrictEqual(item, newest[index]))
  if (at === -1) t.pass(`every one of ${oldest.length} ${what} as on the newest peers`)
  else t.strictSame(oldest[at], newest[at], `${what} ${at + 1} of ${oldest.length} as on the newest peers`)
}

test('the suite\'s oldest peers are the oldest that package.json\'s peer ranges allow', async (t) => {
  const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest
  t.same(oldestPeers(), ['@sinclair/typebox@0.34.0', 'fastify@5.0.0'], 'the ranges start at a release, with ^')
  t.same([devDependencies['typebox-oldest'], devDependencies['fastify-oldest']], oldestPeers().map((peer) => `npm:${peer}`),
    'each alias installs a range\'s oldest release, exactly')
})

test('the example apps on Fastify 5.0.0 and TypeBox 0.34.0 answer every client as on the newest peers', async (t) => {
  const [oldest, newest] = await Promise.all([observeOnOldestPeers(), observe()])
  t.strictSame(oldest.peers, oldestPeers(), 'the process of the oldest peers loaded them, and no other copy')
  t.notSame(newest.peers, oldest.peers, 'this process loaded the newest')
  for (const name of Object.keys(newest.traffic)) sameItems(t, oldest.traffic[name] ?? [], newest.traffic[name], `${name} exchanges`)
  sameItems(t, oldest.mistakes, newest.mistakes, 'answers to client mistakes')
  t.strictSame(oldest.documents, newest.documents, 'each version\'s OpenAPI document of each example, byte for byte, and its ETag')
  t.strictSame(oldest.tools, [], 'check against the committed documents, and verify, find nothing')

  // On Fastify 5.0 to 5.8, which have no request.mediaType, a body declared by media type was never converted.
  sameItems(t, oldest.contentBody, newest.contentBody, 'answers about a body declared by media type')
  t.match(oldest.contentBody, [
    { status: 201, body: { id: 'u1', name: 'Ada' } },
    { status: 201, body: { id: 'u1', name: 'Ada' } },
    { status: 400, body: { message: 'body/fullName is already taken' } },
    { status: 400 },
    { status: 201, body: { id: 'u1', fullName: 'Ada' } }
  ], 'an old client\'s body is converted; a validation error its handler throws stays its 400')
})
