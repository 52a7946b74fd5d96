#!/usr/bin/env node
/**
 * `dsh-knowledge`'s entry: turns on Node's compile cache, then runs the command line: the build's bundle of
 * ./main.ts (`bundle/main.js`, one chunk per command: scripts/build.mjs), else ./main.ts itself (a lib/ built by tsc
 * alone).
 *
 * Why: a command is a fresh process that loads ~100 modules of this package, and compiling them was a large part of
 * a one-shot `search`. The cache covers only modules loaded after the call, so this file imports nothing else first.
 * Node keeps it in its own folder (under the system's temporary folder; `NODE_COMPILE_CACHE` moves it,
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off), never under the knowledge root. The bundle spares the resolving,
 * reading and linking of each module (about a third of what loading the search path cost).
 * @module dsh-knowledge-sync/cli/bin
 */
import { existsSync } from 'node:fs'
import module from 'node:module'

module.enableCompileCache?.()
const bundled = new URL('./bundle/main.js', import.meta.url)
await import(existsSync(bundled) ? bundled.href : './main.js')
