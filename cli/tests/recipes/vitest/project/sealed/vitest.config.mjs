// The sealed configuration: Vitest globals, so the tests need not resolve `vitest` from the project.
export default { test: { globals: true } };
