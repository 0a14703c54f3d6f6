// Both sides of every contract, by the same names, for the contract tests.
export * as zod from './shapes.zod.ts';
export * as valibot from './shapes.valibot.ts';
