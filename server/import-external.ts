// import() of a package that stays outside the server bundle (ESM-only @kubernetes/client-node). The bundle is run by
// vm.Script with V8's code cache (server/main-loader.ts), and on Node 20 an import() in code deserialized from that
// cache fails (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: V8 drops the script's dynamic-import host options), so the
// loader hands the bundle its own import() as `__kahImport`; everywhere else (tsc output, tests, require()) it is
// the language's.
declare const __kahImport: ((specifier: string) => Promise<unknown>) | undefined;

export function importExternal(specifier: string): Promise<unknown> {
  return typeof __kahImport === 'function' ? __kahImport(specifier) : import(specifier);
}
