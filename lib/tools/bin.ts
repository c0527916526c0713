#!/usr/bin/env node
/**
 * The package's `bin`: runs {@link runCli} with the process's arguments and streams, then exits with its code
 * (forced after a second, for applications that leave handles open after `close()`).
 * @module
 */
import { runCli } from './cli'

runCli(process.argv.slice(2), { out: (line) => { process.stdout.write(`${line}\n`) }, err: (line) => { process.stderr.write(`${line}\n`) } })
  .then((code) => {
    process.exitCode = code
    setTimeout(() => process.exit(code), 1000).unref()
  }, (error: unknown) => {
    process.stderr.write(`fastify-versioner: ${(error as Error)?.stack ?? String(error)}\n`)
    process.exit(1)
  })
