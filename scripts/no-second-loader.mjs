// What `tsx` resolves to in a process scripts/typescript-loader.mjs loads TypeScript in (see there): nothing to
// register, that loader compiles .ts already.
