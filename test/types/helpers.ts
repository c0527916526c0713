// Shared by the type tests; not a test file itself (tsd runs only `*.test-d.ts`).

/** `true` when `T` is `any`, `false` otherwise (`any` is the only type for which `1 & T` accepts `0`). */
export type IsAny<T> = 0 extends (1 & T) ? true : false

/** The value-level form of {@link IsAny}: `expectType<false>(isAny(value))`. */
export declare function isAny<T> (value: T): IsAny<T>
