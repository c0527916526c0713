'use strict'

// `node --require type-tests-own-files.js node_modules/tsd/dist/cli.js …`, for test/package.test.ts: tsd as it is,
// but its program computes semantic diagnostics only for the files outside node_modules.
//
// tsd forces `skipLibCheck: false`, asks the program for the diagnostics of every file (@types/node, Fastify,
// TypeBox, TypeScript's own lib files: 1,000 files), then drops each one whose file is under node_modules, unread.
// Checking those files was three quarters of tsd's time (about 28 of 38 CPU-seconds) and bought no assertion. What
// tsd reports is the same: the type tests and the package's declarations (dist/, outside node_modules in the test's
// copy) are checked in full, and tsd's assertions (expectType, expectError, …) run on the same program.
const Module = require('node:module')
const { sep } = require('node:path')

const underNodeModules = /[/\\]node_modules[/\\]/
const tsdCompiler = `${sep}tsd${sep}dist${sep}lib${sep}compiler.js`

/** The program, asked for every file's semantic diagnostics, gives those of the files outside node_modules. */
function ownFilesOnly (program) {
  const semantic = program.getSemanticDiagnostics
  return Object.assign(Object.create(program), {
    getSemanticDiagnostics (file, token) {
      if (file !== undefined) return semantic.call(program, file, token)
      return program.getSourceFiles().filter((source) => !underNodeModules.test(source.fileName))
        .flatMap((source) => semantic.call(program, source, token))
    }
  })
}

const load = Module._load
Module._load = function (request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain)
  if (request !== '@tsd/typescript' || parent?.filename?.endsWith(tsdCompiler) !== true) return loaded
  // The module's exports are getters that cannot be redefined: tsd's compiler gets an object inheriting from them.
  return Object.create(loaded, {
    createProgram: { value: (...args) => ownFilesOnly(loaded.createProgram(...args)), enumerable: true }
  })
}
