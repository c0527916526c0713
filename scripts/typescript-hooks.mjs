// Module customization hooks of scripts/typescript-loader.mjs on Node.js before 22.15 (they run on Node's loader
// thread; later, the loader registers in-thread hooks instead): an ESM import of a .ts file, such as the test file
// Node starts with, is loaded as CommonJS, that is by `require`, which scripts/typescript-loader.mjs taught to
// compile TypeScript.
export async function load (url, context, nextLoad) {
  if (url.startsWith('file:') && url.endsWith('.ts')) return { format: 'commonjs', shortCircuit: true }
  return nextLoad(url, context)
}
