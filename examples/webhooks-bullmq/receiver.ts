/**
 * A subscriber's endpoint, as a customer would write one: a plain `node:http` server that verifies each webhook's
 * signature with the `standardwebhooks` package (the raw body, before any JSON parsing), answers 400 to one that does
 * not verify, and accepts each `webhook-id` once. `failFirst` makes it answer 503 to its first attempts (after
 * verifying them), as an endpoint that is down for a while does.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** A webhook the receiver accepted. */
export interface Accepted {
  readonly id: string
  /** The version the body is in, as the version header names it. */
  readonly version: string
  readonly body: unknown
}

/** One request the receiver got: whether its signature verified, and what it answered. */
export interface Attempt {
  readonly timestamp: string
  readonly verified: boolean
  readonly status: number
}

/** A running receiver. */
export interface Receiver {
  readonly url: string
  readonly attempts: readonly Attempt[]
  /** Settles with the first webhook it accepts. */
  readonly accepted: Promise<Accepted>
  close: () => Promise<void>
}

/** The headers as the verifier takes them (one value each). */
function headerValues (headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value ?? '']))
}

/** Starts a receiver on 127.0.0.1 (a free port) for the subscriber holding `secret`. */
export async function startReceiver (options: { secret: string, failFirst?: number }): Promise<Receiver> {
  const verifier = new Webhook(options.secret)
  const attempts: Attempt[] = []
  const seen = new Set<string>()
  let accept: (accepted: Accepted) => void = () => {}
  const accepted = new Promise<Accepted>((resolve) => { accept = resolve })
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const headers = headerValues(request.headers)
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = verifier.verify(text, headers)
      } catch {
        attempts.push({ timestamp: headers['webhook-timestamp'], verified: false, status: 400 })
        response.writeHead(400).end('signature does not verify')
        return
      }
      const failing = attempts.length < (options.failFirst ?? 0)
      const status = failing ? 503 : 204
      attempts.push({ timestamp: headers['webhook-timestamp'], verified: true, status })
      if (!failing && !seen.has(headers['webhook-id'])) {
        seen.add(headers['webhook-id'])
        accept({ id: headers['webhook-id'], version: headers['x-api-version'], body })
      }
      response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    attempts,
    accepted,
    close: async () => { await new Promise<void>((resolve) => server.close(() => { resolve() })) }
  }
}
