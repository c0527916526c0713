'use strict'

const neostandard = require('neostandard')

module.exports = [
  ...neostandard({
    ignores: [...neostandard.resolveIgnoresFromGitignore(), 'test/types/**', 'tap-snapshots/**', 'vendor/**'],
    ts: true
  }),
  {
    // One function, one job: the plugin's functions stay short enough to read at once (see ARCHITECTURE.md).
    files: ['plugin.ts', 'tools.ts', 'lib/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      // No Node.js or JavaScript API newer than package.json's engines claim (read from there): the package runs on
      // every Node.js version it says it does, not only the one CI runs (decision 0212). Response is a type here.
      'n/no-unsupported-features/node-builtins': ['error', { ignores: ['Response'] }],
      'n/no-unsupported-features/es-builtins': 'error',
      'n/no-unsupported-features/es-syntax': 'error'
    }
  }
]
