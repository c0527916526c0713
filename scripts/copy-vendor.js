'use strict'

// Copies vendor/ (third-party browser files shipped with the package: ReDoc's standalone bundle) to
// dist/vendor/, so that lib/docs/assets.ts finds them at the same relative path from lib/docs and dist/lib/docs.
const { cpSync, existsSync } = require('node:fs')
const { join } = require('node:path')

const root = join(__dirname, '..')
const bundle = join(root, 'vendor', 'redoc', 'redoc.standalone.js')
if (!existsSync(bundle)) throw new Error(`${bundle} is missing: the package would ship no ReDoc (see vendor/redoc/README.md)`)
cpSync(join(root, 'vendor'), join(root, 'dist', 'vendor'), { recursive: true })
