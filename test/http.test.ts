// Every test file of test/http/, in this one process (see test/helpers/folder-suite.ts).
import { join } from 'node:path'
import { runTestFolder } from './helpers/folder-suite'

runTestFolder(join(__dirname, 'http'))
