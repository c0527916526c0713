/**
 * Question: how long does schema generation take for 50 versions × 200 schemas, and how does that time grow
 * with the number of versions? (It must grow at most linearly.)
 *
 * 200 HEAD object schemas, some nesting others (as a property, in an array, in a union), every fourth with
 * an `$id`. Every version but the oldest has one version change (a fresh class) with four instructions on
 * four schemas: a rename, a keyword change, a field that existed before, and a field that did not exist.
 * Measured, as the median of several runs after warm-up:
 *   (i)  `generateVersionedSchemas(bundle)`: checking and walking every instruction;
 *   (ii) materialising every schema in every version (`lookup.get(schema)` for all 200 × versions),
 *        on a fresh generation each run.
 * Baseline, measured in the same run: building the 200 HEAD schemas with TypeBox.
 *
 * Run: `npm run bench` (all benchmarks) or `node --expose-gc --import tsx benchmarks/schema-generation.ts`.
 */
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { generateVersionedSchemas, HeadVersion, schema, Version, VersionBundle, VersionChange, type Instruction, type VersionChangeClass } from '../plugin'
import { fixed, markdownTable, measure, median } from './_measure'

const SCHEMAS = 200
const VERSION_COUNTS = [10, 25, 50, 100, 200]
const HEADLINE_VERSIONS = 50
const OPTIONAL_FIELDS = 6

/** The HEAD schemas: flat fields, optional fields that versions remove, and references to earlier schemas. */
function buildHeadSchemas (): TObject[] {
  const schemas: TObject[] = []
  for (let index = 0; index < SCHEMAS; index++) {
    const properties: TProperties = {
      id: Type.String({ format: 'uuid' }),
      title: Type.String({ maxLength: 50 }),
      label: Type.String(),
      count: Type.Integer({ minimum: 0 })
    }
    for (let field = 0; field < OPTIONAL_FIELDS; field++) properties[`extra${field}`] = Type.Optional(Type.Number())
    if (index >= 10) {
      if (index % 3 === 0) properties.child = schemas[index - 1]
      if (index % 5 === 0) properties.items = Type.Array(schemas[index - 7])
      if (index % 7 === 0) properties.either = Type.Union([schemas[index - 3], schemas[index - 5], Type.Null()])
      if (index % 11 === 0) properties.maybe = Type.Optional(schemas[index - 2])
    }
    schemas.push(Type.Object(properties, index % 4 === 0 ? { $id: `Schema${index}` } : {}))
  }
  return schemas
}

/**
 * A bundle of `versionCount` versions over `schemas`. Instructions are written newest version first, so the
 * generator tracks each schema's field names as older versions see them, and no instruction is a no-op.
 */
function buildBundle (schemas: readonly TObject[], versionCount: number): VersionBundle {
  const labelName = schemas.map(() => 'label')
  const extras = schemas.map(() => Array.from({ length: OPTIONAL_FIELDS }, (_, field) => `extra${field}`))
  const pick = (step: number, multiplier: number, offset: number): number => (step * multiplier + offset) % SCHEMAS
  const versions: Version[] = []
  for (let step = 0; step < versionCount; step++) {
    const date = new Date(Date.UTC(2030, 0, 1) - step * 86_400_000)
    if (step === versionCount - 1) {
      versions.push(new Version(date)) // the oldest version has no changes
      continue
    }
    const renamed = pick(step, 7, 0)
    const keyword = pick(step, 13, 1)
    const existed = pick(step, 29, 2)
    let removed = pick(step, 31, 3)
    while (extras[removed].length === 0) removed = (removed + 1) % SCHEMAS
    const newLabel = `label_v${step}`
    const instructions: Instruction[] = [
      schema(schemas[renamed]).field(labelName[renamed]).had({ name: newLabel }),
      schema(schemas[keyword]).field('title').had({ maxLength: 100 + step, description: `title before change ${step}` }),
      schema(schemas[existed]).field(`legacy_v${step}`).existedAs({ type: Type.String(), default: '' }),
      schema(schemas[removed]).field(extras[removed].shift() as string).didntExist
    ]
    const description = `Change ${step}: ${newLabel} was ${labelName[renamed]}, title had another maxLength, legacy_v${step} existed, a field did not.`
    labelName[renamed] = newLabel
    const Change = class extends VersionChange {
      description = description
      instructionsToMigrateToPreviousVersion = instructions
    }
    Object.defineProperty(Change, 'name', { value: `BenchmarkChange${versionCount}x${step}` })
    versions.push(new Version(date, Change as VersionChangeClass))
  }
  return new VersionBundle(new HeadVersion(), ...versions)
}

function materialise (bundle: VersionBundle, schemas: readonly TSchema[]): number {
  let rebuilt = 0
  for (const lookup of generateVersionedSchemas(bundle)) {
    for (const head of schemas) if (lookup.get(head) !== head) rebuilt++
  }
  return rebuilt
}

interface Row {
  versions: number
  walk: number
  materialise: number
  rebuilt: number
}

function runFor (versionCount: number, schemas: readonly TObject[]): Row {
  const bundle = buildBundle(schemas, versionCount)
  const runs = versionCount <= 50 ? 15 : 9
  const walk = median(measure(() => bundle, (b) => generateVersionedSchemas(b), { warmup: 5, runs }))
  // Each run materialises on a fresh generation (its memo starts empty); the walk is excluded by `prepare`.
  const materialiseTimes = measure(() => generateVersionedSchemas(bundle), (generated) => {
    for (const lookup of generated) for (const head of schemas) lookup.get(head)
  }, { warmup: 3, runs })
  return { versions: versionCount, walk, materialise: median(materialiseTimes), rebuilt: materialise(bundle, schemas) }
}

function main (): void {
  const headBuild = median(measure(() => undefined, buildHeadSchemas, { warmup: 5, runs: 25 }))
  const schemas = buildHeadSchemas()
  const rows = VERSION_COUNTS.map((count) => runFor(count, schemas))

  console.log(`# Schema generation: ${SCHEMAS} HEAD schemas, 4 instructions per version change`)
  console.log(`Node ${process.version}; medians in ms; baseline: building the ${SCHEMAS} HEAD schemas with TypeBox = ${fixed(headBuild, 3)} ms\n`)
  const table = rows.map((row, index) => {
    const previous = rows[index - 1]
    const total = row.walk + row.materialise
    const growth = previous === undefined
      ? '–'
      : `${fixed(total / (previous.walk + previous.materialise))}× for ${fixed(row.versions / previous.versions, 1)}× versions`
    return [
      String(row.versions),
      fixed(row.walk),
      fixed(row.materialise),
      fixed(total),
      fixed((total / row.versions) * 1000, 0),
      fixed(total / row.versions / headBuild, 2),
      `${row.rebuilt} / ${row.versions * SCHEMAS}`,
      growth
    ]
  })
  console.log(markdownTable(
    ['versions', '(i) generate ms', '(ii) materialise all ms', 'total ms', 'µs per version', 'per version ÷ HEAD build', 'rebuilt forms', 'growth vs previous row'],
    table
  ))

  const first = rows[0]
  const last = rows[rows.length - 1]
  const exponent = (row: Row, of: (r: Row) => number): number => Math.log(of(row) / of(first)) / Math.log(row.versions / first.versions)
  const total = (row: Row): number => row.walk + row.materialise
  const headline = rows.find((row) => row.versions === HEADLINE_VERSIONS) as Row
  console.log(`\nAnswer: ${HEADLINE_VERSIONS} versions × ${SCHEMAS} schemas: generateVersionedSchemas ${fixed(headline.walk)} ms, ` +
    `materialising all ${HEADLINE_VERSIONS * SCHEMAS} forms ${fixed(headline.materialise)} ms (total ${fixed(total(headline))} ms).`)
  const k = exponent(last, total)
  console.log(`Growth from ${first.versions} to ${last.versions} versions: time ∝ versions^${fixed(k)} ` +
    `(generate ^${fixed(exponent(last, (row) => row.walk))}, materialise ^${fixed(exponent(last, (row) => row.materialise))}); ` +
    `${k <= 1.15 ? 'at most linear' : 'SUPERLINEAR: investigate'}.`)
}

main()
