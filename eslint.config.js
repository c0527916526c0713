'use strict'

const neostandard = require('neostandard')

module.exports = neostandard({
  ignores: [...neostandard.resolveIgnoresFromGitignore(), 'test/types/**', 'tap-snapshots/**', 'vendor/**'],
  ts: true
})
