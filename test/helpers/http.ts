/**
 * Helpers for the HTTP tests of the response side: short `inject` calls that send a version header, the
 * JSON body of a response, and GETs over a real connection.
 */
import { request, type Agent, type IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

/** Injects a request for `version` (sent in the `x-api-version` header). */
export function call (
  app: FastifyInstance,
  version: string,
  url: string,
  options: Omit<InjectOptions, 'url'> = {}
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', ...options, url, headers: { ...options.headers, 'x-api-version': version } })
}

/** The parsed JSON body of a response (`undefined` when it is not JSON, e.g. the empty body of a HEAD). */
export function jsonOf (response: { body: string }): any {
  try {
    return JSON.parse(response.body)
  } catch {
    return undefined
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A GET over a real connection (keep-alive through `agent`), answering status and parsed JSON body. */
export function httpGet (
  port: number,
  path: string,
  agent: Agent,
  headers: Record<string, string> = {}
): Promise<{ status: number, body: unknown, headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent, headers }, (response) => {
      let data = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { data += chunk })
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(data), headers: response.headers })
        } catch (error) {
          reject(error)
        }
      })
    }).on('error', reject).end()
  })
}
