/**
 * Reading what the product left on disk, for assertions: every document under a root and the ledger.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

export interface FileOnDisk {
  path: string
  text: string
}

/** Every `.md` file under `root` (dot folders and files excluded), root-relative paths, sorted. */
export function allDocuments(root: string): FileOnDisk[] {
  const out: FileOnDisk[] = []
  const walk = (dir: string) => {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (name.endsWith('.md')) out.push({ path: relative(root, full), text: readFileSync(full, 'utf8') })
    }
  }
  walk(root)
  return out.sort((a, b) => a.path.localeCompare(b.path))
}

/** Every file under `root`, dot files included (for "nothing leaked anywhere" checks). */
export function allFiles(root: string): FileOnDisk[] {
  const out: FileOnDisk[] = []
  const walk = (dir: string) => {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else out.push({ path: relative(root, full), text: readFileSync(full, 'utf8') })
    }
  }
  walk(root)
  return out
}

/** The ledger's entries (`<root>/.knowledge/ledger.jsonl`). */
export function ledgerEntries(root: string): any[] {
  const file = join(root, '.knowledge/ledger.jsonl')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}
