/**
 * The root's folders as the last walk listed them: for each folder, its mtime and ctime when it was listed and what
 * the walk took from it (document files, folders to descend, linked documents). A folder whose times are the same
 * now is not listed again: its entries cannot have changed (adding, removing or renaming an entry sets both), though
 * its files may have, so every file is still stat'ed (./list-files.ts). Why: at 100k documents, listing every folder
 * took a fresh CLI command 110–150 ms of its ~0.5 s; the walk from this file (3.4 MB) takes 35–55 ms, most of it
 * reading and splitting the file.
 *
 * Kept beside the index file (the cache folder), so it may come from someone else's push too: it is read as any state
 * file is (no link, a regular file, bounded), every name must be one entry (no `/`, not `.` or `..`), every
 * folder a path under the root, and anything else discards it whole (the walk then lists every folder). A memo can
 * only make the walk skip listing a folder whose times it names exactly, ctime included, which nobody can set.
 * Imports only Node and modules that import only Node: a worker thread loads it (index-cache/reconcile-worker.ts).
 * @module dsh-knowledge-sync/knowledge/disk/tree-memo
 */
import { RACY_MS } from '../../search/stamp-digest.js'
import { readRootStateFile, writeRootStateFile } from './root-files.js'

/** The memo's file name, in the index cache's folder (index-cache/reconcile-worker.ts, treeMemoFile). */
export const TREE_MEMO_FILE = 'tree-v1.memo'
/** The file's first field; a change to what the walk takes from a folder (its skip rules) must change it. */
const MAGIC = 'dsh-knowledge-tree-v1'
/** The largest memo read (a million documents in generated rounds' folders take ~35 MB). */
const MAX_MEMO_BYTES = 256 * 1024 * 1024
/** The walk's depth bound (./list-files.ts), which a folder's path in a memo cannot exceed either. */
export const MAX_DEPTH = 8

/** What the walk took from one folder. */
export interface MemoFolder {
  mtimeMs: number
  ctimeMs: number
  /** It holds the originals' manifest folder: nothing under it is a document. */
  originals: boolean
  /** Document files (`.md`), folders to descend into, and documents that are links (reported, never followed). */
  files: string[]
  folders: string[]
  links: string[]
}

/** The folders of one walk, by path relative to the root ('' for the root), and when it began. */
export interface TreeMemo {
  startedAt: number
  folders: Map<string, MemoFolder>
}

/**
 * The walk's use of a memo: `previous` (read before the walk, if any), `next` (filled by the walk), and how many
 * folders were listed again (any: `next` is worth writing).
 */
export interface MemoWalk {
  previous?: TreeMemo
  next: TreeMemo
  listed: number
}

/**
 * Whether `folder` (as the memo holds it) may stand for a folder stat'ed with these times. Not within RACY_MS of the
 * recording: an entry added within the file system's timestamp granularity of the listing leaves the times as they
 * were (the reconcile's rule for files, for the same reason).
 */
export function stillListed(memo: TreeMemo, folder: MemoFolder, mtimeMs: number, ctimeMs: number): boolean {
  return folder.mtimeMs === mtimeMs && folder.ctimeMs === ctimeMs && memo.startedAt - Math.max(mtimeMs, ctimeMs) >= RACY_MS
}

/**
 * The memo in `file` (under `root`); undefined when there is none or it cannot be used as it is. The text is fields
 * separated by NUL (which no name can hold): the magic, the walk's start, then each folder after its parent (the
 * root first): its parent's number (-1 for the root), its name, mtime, ctime, `o` or `-` (originals), the counts of
 * files, folders and links, then their names. No field holds a `/` or is empty, `.` or `..` (one test of the whole
 * text), so every name is one entry, and every folder's path, built from its parents', lies under the root.
 */
export function readTreeMemo(root: string, file: string): TreeMemo | undefined {
  let text: string | undefined
  try {
    text = readRootStateFile(root, file, MAX_MEMO_BYTES)
  } catch {
    return undefined // a link, not a regular file, too large: as if there were none
  }
  // (A plain search per string: one regular expression over a few MB took a fresh process 3–5 ms.)
  if (!text?.endsWith('\0') || ['/', '\0\0', '\0.\0', '\0..\0'].some((bad) => text.includes(bad))) return undefined
  const parts = text.split('\0')
  if (parts[0] !== MAGIC) return undefined
  const startedAt = Number(parts[1])
  if (!Number.isFinite(startedAt)) return undefined
  const folders = new Map<string, MemoFolder>()
  const paths: string[] = []
  const depths: number[] = []
  let at = 2
  const names = (count: string): string[] | undefined => {
    const n = Number(count)
    if (!Number.isSafeInteger(n) || n < 0 || at + n > parts.length - 1) return undefined
    at += n
    return parts.slice(at - n, at)
  }
  // The last part is the empty one after the final separator: a torn write (a shorter text) ends elsewhere.
  while (at < parts.length - 1) {
    const [parent, name, mtime, ctime, originals, nFiles, nFolders, nLinks] = parts.slice(at, at + 8)
    at += 8
    const up = Number(parent)
    const mtimeMs = Number(mtime)
    const ctimeMs = Number(ctime)
    if (nLinks === undefined || !Number.isFinite(mtimeMs) || !Number.isFinite(ctimeMs)) return undefined
    // The root, once and first; any other folder below one already read, within the walk's depth.
    if (up === -1 ? paths.length > 0 || name !== '-' : !Number.isSafeInteger(up) || up < 0 || up >= paths.length || depths[up] >= MAX_DEPTH) return undefined
    const rel = up === -1 ? '' : paths[up] ? `${paths[up]}/${name}` : name
    if (folders.has(rel)) return undefined
    const files = names(nFiles)
    const sub = files && names(nFolders)
    const links = sub && names(nLinks)
    if (!files || !sub || !links) return undefined
    paths.push(rel)
    depths.push(up === -1 ? 0 : depths[up] + 1)
    folders.set(rel, { mtimeMs, ctimeMs, originals: originals === 'o', files, folders: sub, links })
  }
  return at === parts.length - 1 && paths.length > 0 ? { startedAt, folders } : undefined
}

/** Writes `memo` to `file` under `root` (atomically; a failure is the caller's to log, the walk stands). */
export async function writeTreeMemo(root: string, file: string, memo: TreeMemo): Promise<void> {
  const parts = [MAGIC, String(memo.startedAt)]
  const number = new Map<string, number>()
  for (const [rel, f] of memo.folders) {
    const cut = rel.lastIndexOf('/')
    const parent = rel === '' ? -1 : number.get(cut < 0 ? '' : rel.slice(0, cut))
    // A folder whose parent the walk did not keep (it cannot happen: the walk goes down from the root) is left out.
    if (parent === undefined) continue
    number.set(rel, number.size)
    parts.push(String(parent), rel === '' ? '-' : rel.slice(cut + 1), String(f.mtimeMs), String(f.ctimeMs), f.originals ? 'o' : '-')
    parts.push(String(f.files.length), String(f.folders.length), String(f.links.length), ...f.files, ...f.folders, ...f.links)
  }
  await writeRootStateFile(root, file, `${parts.join('\0')}\0`)
}
