import { test } from 'tap'
import * as versioner from '../../plugin'
import { errorCodes } from '../../plugin'

test('every error code key equals the code of its class', async (t) => {
  t.ok(Object.keys(errorCodes).length > 0, 'there are error codes to check')
  for (const [key, ErrorClass] of Object.entries(errorCodes)) {
    const error = new ErrorClass('x')
    t.equal(error.code, key, `${key} has its own code`)
    t.ok(error instanceof Error, `${key} is an Error`)
    t.match(key, /^FST_VERSIONER_[A-Z_]+$/, `${key} follows the FST_VERSIONER_* pattern`)
  }
})

test('every error class is exported by name from the package root', async (t) => {
  const exported = new Set(Object.values(versioner))
  t.ok(Object.keys(errorCodes).length > 0, 'there are error classes to check')
  for (const [key, ErrorClass] of Object.entries(errorCodes)) {
    t.ok(exported.has(ErrorClass), `${key} is exported`)
  }
})

test('client errors are 4xx, developer errors are 500', async (t) => {
  t.equal(new errorCodes.FST_VERSIONER_INVALID_API_VERSION('bad').statusCode, 400)
  t.equal(new errorCodes.FST_VERSIONER_MISSING_API_VERSION('none').statusCode, 400)
  t.equal(new errorCodes.FST_VERSIONER_STRUCTURE('x').statusCode, 500)
  t.equal(new errorCodes.FST_VERSIONER_LATEST_REQUEST_VALIDATION('2000-01-01').statusCode, 500)
})

test('router errors extend RouterGenerationError', async (t) => {
  for (const ErrorClass of [versioner.RouterPathParamsModifiedError, versioner.RouteByPathConverterDoesNotApplyToAnythingError,
    versioner.RouteRequestBySchemaConverterDoesNotApplyToAnythingError, versioner.RouteResponseBySchemaConverterDoesNotApplyToAnythingError]) {
    t.ok(new ErrorClass('x') instanceof versioner.RouterGenerationError)
  }
})

test('messages carry their arguments', async (t) => {
  t.match(new versioner.LintingError('GETT').message, /GETT/)
  t.match(new versioner.VersionerLatestRequestValidationError('2000-01-01').message, /2000-01-01/)
})
