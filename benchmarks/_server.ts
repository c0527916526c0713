/**
 * A benchmark server (a helper, started by `benchmarks/http-versions.ts`, one process per configuration):
 * `node --import tsx benchmarks/_server.ts <kind>` (see `ServerKind`). It listens on 127.0.0.1 on a free port, prints
 * `listening <port>` on stdout, and exits when its stdin closes (so it never outlives the benchmark) or on
 * SIGTERM.
 * @module
 */
import { buildBenchmarkApp, SERVER_KINDS, type ServerKind } from './_http-app'

async function main (): Promise<void> {
  const kind = process.argv[2]
  if (!(SERVER_KINDS as readonly string[]).includes(kind)) throw new Error(`usage: _server.ts ${SERVER_KINDS.join('|')} (got ${String(kind)})`)
  const app = await buildBenchmarkApp(kind as ServerKind)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('the server has no TCP address')
  const stop = (): void => {
    app.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.stdin.on('end', stop)
  process.stdin.on('error', stop)
  process.stdin.resume()
  process.on('SIGTERM', stop)
  process.stdout.write(`listening ${address.port}\n`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
