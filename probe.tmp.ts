import { compareDocuments } from '/work/wt/reviewcheck/tools'
type Json = Record<string, any>
function base (): Json {
  const versionHeader = { in: 'header', name: 'x-api-version', required: true, schema: { type: 'string', enum: ['2000-01-01'] } }
  return {
    openapi: '3.1.0', info: { title: 'API', version: '2000-01-01' },
    components: { schemas: {
      Req: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, tags: { type: 'array', items: { type: 'string' }, maxItems: 10 }, kind: { type: 'string', enum: ['x', 'y', 'z'] }, n: { type: ['string', 'null'] }, m: { type: 'string', nullable: true }, e: { type: 'string' } } },
      Res: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' }, kind: { type: 'string', enum: ['x', 'y', 'z'] }, n: { type: ['string', 'null'] }, list: { type: 'array', items: { type: 'string' } } } }
    } },
    paths: { '/users': { post: {
      parameters: [versionHeader, { in: 'header', name: 'x-tenant', required: false, schema: { type: 'string' } }, { in: 'query', name: 'q', required: false, schema: { type: 'string' } }],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Req' } } } },
      responses: {
        200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Res' } } } },
        default: { description: 'err', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } }
      } } } }
  }
}
const cases: Record<string, (d: Json) => void> = {
  'req required reorder': (d) => { d.components.schemas.Req.required = ['b', 'a'] },
  'res required reorder': (d) => { d.components.schemas.Res.required = ['name', 'id'] },
  'req required swap a->c': (d) => { d.components.schemas.Req.required = ['c', 'b'] },
  'res required swap name->kind': (d) => { d.components.schemas.Res.required = ['id', 'kind'] },
  'req required insert front': (d) => { d.components.schemas.Req.required = ['c', 'a', 'b'] },
  'res required drop front': (d) => { d.components.schemas.Res.required = ['name'] },
  'req enum reorder': (d) => { d.components.schemas.Req.properties.kind.enum = ['z', 'x', 'y'] },
  'res enum reorder': (d) => { d.components.schemas.Res.properties.kind.enum = ['z', 'x', 'y'] },
  'req enum replace front (x removed, w added)': (d) => { d.components.schemas.Req.properties.kind.enum = ['w', 'y', 'z'] },
  'res enum insert front': (d) => { d.components.schemas.Res.properties.kind.enum = ['w', 'x', 'y', 'z'] },
  'req type null dropped': (d) => { d.components.schemas.Req.properties.n.type = 'string' },
  'res type null added': (d) => { d.components.schemas.Res.properties.list = { type: ['array', 'null'], items: { type: 'string' } } },
  'res type list reorder': (d) => { d.components.schemas.Res.properties.n.type = ['null', 'string'] },
  'req type list reorder': (d) => { d.components.schemas.Req.properties.n.type = ['null', 'string'] },
  'req nullable dropped': (d) => { delete d.components.schemas.Req.properties.m.nullable },
  'req nullable -> type list': (d) => { d.components.schemas.Req.properties.m = { type: ['string', 'null'] } },
  'res n type list -> nullable': (d) => { d.components.schemas.Res.properties.n = { type: 'string', nullable: true } },
  'status 200 removed': (d) => { delete d.paths['/users'].post.responses[200] },
  'default removed': (d) => { delete d.paths['/users'].post.responses.default },
  'req content type changed': (d) => { const rb = d.paths['/users'].post.requestBody.content; rb['application/x-www-form-urlencoded'] = rb['application/json']; delete rb['application/json'] },
  'res content type changed': (d) => { const rb = d.paths['/users'].post.responses[200].content; rb['application/vnd.api+json'] = rb['application/json']; delete rb['application/json'] },
  'req content type added': (d) => { const rb = d.paths['/users'].post.requestBody.content; rb['text/plain'] = { schema: { type: 'string' } } },
  'res content type added': (d) => { const rb = d.paths['/users'].post.responses[200].content; rb['text/plain'] = { schema: { type: 'string' } } },
  'header made required': (d) => { d.paths['/users'].post.parameters[1].required = true },
  'header renamed case': (d) => { d.paths['/users'].post.parameters[1].name = 'X-Tenant' },
  'params reorder': (d) => { const p = d.paths['/users'].post.parameters; p.reverse() },
  'params reorder + q required': (d) => { const p = d.paths['/users'].post.parameters; p.reverse(); p[0].required = true },
  'req format added': (d) => { d.components.schemas.Req.properties.e.format = 'email' },
  'req format changed': (d) => { d.components.schemas.Req.properties.e.format = 'email'; d.components.schemas.Req.properties.c.format = 'uuid' },
  'req pattern added': (d) => { d.components.schemas.Req.properties.e.pattern = '^a' },
  'req maxItems lowered': (d) => { d.components.schemas.Req.properties.tags.maxItems = 5 },
  'req maxItems added items': (d) => { d.components.schemas.Req.properties.tags.minItems = 1 },
  'query param pattern': (d) => { d.paths['/users'].post.parameters[2].schema.pattern = '^a' },
  'query param maxLength': (d) => { d.paths['/users'].post.parameters[2].schema.maxLength = 3 },
  'header param format': (d) => { d.paths['/users'].post.parameters[1].schema.format = 'uuid' },
  'res items type': (d) => { d.components.schemas.Res.properties.list.items.type = 'integer' },
  'req body required false->true': (d) => { d.paths['/users'].post.requestBody.required = false },
  'res schema inlined differently (ref one side)': (d) => { d.paths['/users'].post.responses[200].content['application/json'].schema = { ...d.components.schemas.Res, required: ['id'] } },
  'req schema inline with new required': (d) => { d.paths['/users'].post.requestBody.content['application/json'].schema = { ...d.components.schemas.Req, required: ['a', 'b', 'c'] } },
  'res minItems removed?': (d) => { d.components.schemas.Res.properties.list.maxItems = 3 },
  'req exclusiveMinimum': (d) => { d.components.schemas.Req.properties.c = { type: 'number', exclusiveMinimum: 0 }; },
}
for (const [name, edit] of Object.entries(cases)) {
  const after = base(); edit(after)
  let out: string
  try { out = compareDocuments('2000-01-01', base(), after).map((c) => `${c.breaking ? 'BREAK' : 'note '} ${c.text}`).join('\n    ') } catch (e) { out = 'THROW ' + (e as Error).message }
  console.log(`== ${name}\n    ${out || '(nothing)'}`)
}
