// Every test file of test/verify/, in this one process (see test/helpers/folder-suite.ts). Its apps share their
// compiled schemas, and the tools' Ajv instances their compilations (decision 0293).
import { join } from 'node:path'
import { shareEveryAppsCompilers } from './helpers/compiled-schemas'
import { runTestFolder } from './helpers/folder-suite'

shareEveryAppsCompilers()
runTestFolder(join(__dirname, 'verify'))
