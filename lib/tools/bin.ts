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
// Node exits when nothing is left to wait for, even with the command unfinished: an application awaiting a promise
// that never settles (and holding no handle) made it exit 0, its checks never run.
function unfinished (): void {
  process.stderr.write('fastify-versioner: the command stopped unfinished: the application awaits a promise that never settles (in its module, ' +
    'app function, plugins or hooks) and left nothing running; nothing more was checked.\n')
  process.exitCode = 1
}
process.once('beforeExit', unfinished)

runCli(process.argv.slice(2), { out: (line) => { process.stdout.write(`${line}\n`) }, err: (line) => { process.stderr.write(`${line}\n`) } })
  .then((code) => {
    process.off('beforeExit', unfinished)
    process.exitCode = code
    setTimeout(() => process.exit(code), 1000).unref()
  }, (error: unknown) => {
    process.stderr.write(`fastify-versioner: ${(error as Error)?.stack ?? String(error)}\n`)
    process.exit(1)
  })
