/**
 * The registry's own code (client signing, storage), loaded at run time. The bench runs against
 * builds with and without the registry, so these modules are imported by computed URL: the type
 * checker does not follow them, and a build without the registry fails only if this is called.
 */
// deno-lint-ignore no-explicit-any
type Module = any;

const ROOT = new URL("../../", import.meta.url);

/** Imports `path` (relative to the project root), e.g. "client/registry.ts". */
export function registryModule(path: string): Promise<Module> {
  return import(new URL(path, ROOT).href);
}
