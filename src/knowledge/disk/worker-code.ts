/**
 * What every worker thread of the store evaluates before its own code (the start-up reconcile, the health probe):
 * the workers are source evaluated with `eval: true`, and import this package's modules by URL. That source runs as a
 * script or as a module alike: built-in modules come from `process.getBuiltinModule`, not `require`, because a host
 * started with `--input-type=module` (a script run with `node -e`) passes that flag to every eval'd worker, which is
 * then a module where `require` is not defined (each worker failed so; a start fell back to the main thread). From source
 * (the tests), Node strips the types of the `.ts` files, whose imports name `.js` files: those resolve to the `.ts`
 * files. SQLite's ExperimentalWarning is printed no more than the main thread prints it (see cli/bin.ts).
 * @module dsh-knowledge-sync/knowledge/disk/worker-code
 */

/** Whether this package runs from its TypeScript source (the tests) rather than from lib/. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts')

/** The URL of one of this package's modules, `path` without its extension, relative to `base` (an `import.meta.url`). */
export function moduleUrl(path: string, base: string): string {
  return new URL(FROM_SOURCE ? `${path}.ts` : `${path}.js`, base).href
}

/** The workers' common prelude; their `workerData` carries `fromSource` ({@link FROM_SOURCE}). */
export const WORKER_PRELUDE = String.raw`
const emit = process.emitWarning
process.emitWarning = (warning, ...rest) => /^SQLite is an experimental feature/.test(String(warning)) ? undefined : emit.call(process, warning, ...rest)
if (process.getBuiltinModule('node:worker_threads').workerData.fromSource) {
  process.getBuiltinModule('node:module').registerHooks({
    resolve(specifier, context, next) {
      try { return next(specifier, context) } catch (error) {
        if (!/^\.\.?\/.*\.js$/.test(specifier)) throw error
        return next(specifier.slice(0, -3) + '.ts', context)
      }
    },
  })
}
`
