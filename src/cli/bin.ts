#!/usr/bin/env node
/**
 * `dsh-knowledge`'s entry: turns on Node's compile cache, then runs the command line (./main.ts).
 *
 * Why: a command is a fresh process that loads ~100 modules of this package, and compiling them was a large part of
 * a one-shot `search`. The cache covers only modules loaded after the call, so this file imports nothing else first.
 * Node keeps it in its own folder (under the system's temporary folder; `NODE_COMPILE_CACHE` moves it,
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off), never under the knowledge root.
 * @module dsh-knowledge-sync/cli/bin
 */
import module from 'node:module'

module.enableCompileCache?.()
await import('./main.js')
