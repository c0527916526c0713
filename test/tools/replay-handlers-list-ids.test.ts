// `replay --handlers` (decision 0308): a list whose items' ids the list itself shows first (a note's lines, made with
// the note and listed later) is matched item by item by what the items hold beside those ids, so that a list both
// fresh applications answer in another order than recorded is named as an order, and each item's id is learned from
// the same item, not from the item at its place.
import { test } from 'tap'
import { randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, HeadVersion, versioned, Version, VersionBundle } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'

const NoteInput = Type.Object({ lines: Type.Array(Type.String()) })
const Line = Type.Object({ id: Type.String(), text: Type.String() })
const Failure = Type.Object({ message: Type.String() })
const NoteParams = Type.Object({ noteId: Type.String() })
const LineParams = Type.Object({ noteId: Type.String(), lineId: Type.String() })

/** How a note's lines are listed: as written; sorted by text (a handler change); or each application its own way (a hash's order). */
type Listing = 'as written' | 'by text' | 'per application'

/** A builder of fresh notebooks (each its own empty store), listing lines as `listing` says. */
function notebook (listing: Listing): () => Promise<FastifyInstance> {
  let built = 0
  return async () => {
    const seed = built++
    const notes = new Map<string, Array<typeof Line.static>>()
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      api.post('/notes', { schema: { body: NoteInput, response: { 200: Type.Object({ id: Type.String(), lines: Type.Integer() }) } } }, async (request) => {
        const id = randomUUID()
        notes.set(id, request.body.lines.map((text) => ({ id: randomUUID(), text })))
        return { id, lines: request.body.lines.length }
      })
      api.get('/notes/:noteId/lines', { schema: { params: NoteParams, response: { 200: Type.Object({ data: Type.Array(Line) }), 404: Failure } } }, async (request, reply) => {
        const lines = notes.get(request.params.noteId)
        if (lines === undefined) return await reply.code(404).send({ message: 'No such note' })
        const listed = [...lines]
        if (listing === 'by text') listed.sort((one, other) => one.text.localeCompare(other.text))
        if (listing === 'per application' && seed % 2 === 1) listed.reverse()
        return { data: listed }
      })
      api.get('/notes/:noteId/lines/:lineId', { schema: { params: LineParams, response: { 200: Line, 404: Failure } } }, async (request, reply) =>
        notes.get(request.params.noteId)?.find((line) => line.id === request.params.lineId) ?? await reply.code(404).send({ message: 'No such line' }))
    }))
    return app
  }
}

/** A client writes a note of three lines, lists them, and reads the first listed back by its id; recorded from a notebook listing them as written. */
async function noteTraffic (): Promise<string> {
  const app = await notebook('as written')()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    const headers = { 'x-api-version': '2000-01-01' }
    const note = (await app.inject({ method: 'POST', url: '/notes', headers, payload: { lines: ['milk', 'eggs', 'bread'] } })).json<{ id: string }>()
    const listed = (await app.inject({ method: 'GET', url: `/notes/${note.id}/lines`, headers })).json<{ data: Array<{ id: string }> }>()
    await app.inject({ method: 'GET', url: `/notes/${note.id}/lines/${listed.data[0].id}`, headers })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  return lines.join('\n')
}

/** The findings of the traffic replayed through fresh notebooks listing as `listing` says. */
async function findings (traffic: string, listing: Listing): Promise<string[]> {
  const build = notebook(listing)
  const app = await build()
  try {
    await app.ready()
    return (await replayTraffic(app, readTraffic(traffic), { handlers: build })).findings.map((finding) => finding.text)
  } finally {
    await app.close()
  }
}

test("replay --handlers: a list whose items' ids it shows first, answered in another order by both fresh applications, is named as an order", async (t) => {
  const traffic = await noteTraffic()
  t.same(await findings(traffic, 'as written'), [], 'the correct notebook answers as recorded')
  t.same(await findings(traffic, 'by text'), [
    "line 2: GET /notes/:noteId/lines (2000-01-01): answer body/data: the client received its 3 items in the order 'milk', 'eggs', 'bread'; " +
    "the handlers of a fresh application, both alike, now answer them in the order 'bread', 'eggs', 'milk'."
  ], 'one finding, on the list, naming both orders; the line read back by its id is the same line')
  t.same(await findings(traffic, 'per application'), [], 'an order the two applications give differently is not the handlers\' decision: left out')
})
