/**
 * How the disk tells an originals folder: it holds the hidden manifest folder. The store's scan and watcher skip
 * such a folder: its files are the person's, not documents, even when they are Markdown.
 * @module dsh-knowledge-sync/knowledge/disk/originals-marker
 */
import { lstatSync } from 'node:fs'
import { join } from 'node:path'

/** The hidden folder inside the originals folder that holds the manifest (and marks the folder). */
export const MANIFEST_DIR = '.manifest'

/** True when `dir` is an originals folder. */
export function holdsOriginals(dir: string): boolean {
  try {
    return lstatSync(join(dir, MANIFEST_DIR)).isDirectory()
  } catch {
    return false
  }
}

/** True when the root-relative `rel` lies inside an originals folder (a folder on its way holds the manifest folder). */
export function insideOriginals(root: string, rel: string): boolean {
  const parts = rel.split('/')
  for (let i = 1; i < parts.length; i++) if (holdsOriginals(join(root, ...parts.slice(0, i)))) return true
  return false
}
