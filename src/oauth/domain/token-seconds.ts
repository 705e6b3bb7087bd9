/** Tokens carry whole seconds: the first issue time after the second `ms` falls in. */
export const nextSecond = (ms: number): number => Math.floor(ms / 1000) * 1000 + 1000;
