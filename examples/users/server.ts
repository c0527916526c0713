/**
 * Starts the users API on 127.0.0.1: `npm run example` (port 3000, or `PORT`; `PORT=0` picks a free port).
 * Prints one line saying where the docs page is and where to send requests, with a curl command for the oldest version.
 */
import { buildApp } from './app'

async function main (): Promise<void> {
  const port = Number(process.env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (0 for any free port); got '${process.env.PORT}'`)
  const app = await buildApp({ fastify: { logger: true } })
  await app.listen({ host: '127.0.0.1', port })
  const address = app.server.address()
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : `http://127.0.0.1:${port}`
  console.log(`Users API ready: docs for every version at ${url}/docs; send requests to ${url} with an x-api-version header (2000-01-01, 2001-01-01 or 2002-01-01), e.g. ` +
    `curl -X POST ${url}/users -H 'content-type: application/json' -H 'x-api-version: 2000-01-01' -d '{"address":"1 Main St"}'`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(() => process.exit(0), () => process.exit(1))
    })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
