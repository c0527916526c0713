#!/usr/bin/env node
/**
 * The package's `bin`: runs {@link runCli} with the process's arguments and streams, then exits with its code
 * (forced after a second, for applications that leave handles open after `close()`).
 * @module
 */
import { runCli } from './cli'

// A reader that stopped reading (`| head`) is no failure of the command: what is left unwritten is dropped, and the
// exit code stands (an EPIPE was an uncaught error, a stack and exit code 1).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
}
runCli(process.argv.slice(2), { out: (line) => { process.stdout.write(`${line}\n`) }, err: (line) => { process.stderr.write(`${line}\n`) } })
  .then((code) => {
    process.exitCode = code
    setTimeout(() => process.exit(code), 1000).unref()
  }, (error: unknown) => {
    process.stderr.write(`fastify-versioner: ${(error as Error)?.stack ?? String(error)}\n`)
    process.exit(1)
  })
