// Every test file of test/documents/, in this one process (see test/helpers/folder-suite.ts).
import { join } from 'node:path'
import { runTestFolder } from './helpers/folder-suite'

runTestFolder(join(__dirname, 'documents'))
