/**
 * Stores on real temporary roots for the store specs: each spec file opens its stores through one fixture, which
 * closes them after every test; and the captured round most of those specs write.
 */
import { afterEach } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnowledgeStore, type DocumentDraft, type KnowledgeStoreOptions, type StoreLogger } from '../../src/knowledge/store.js'
import { createRedactor } from '../../src/redact/redactor.js'

/** Call at a spec file's top level: `open` stores (redaction on, no watcher unless asked), all closed after each test. */
export function storeFixture(prefix: string) {
  const stores: KnowledgeStore[] = []
  const closeAll = async (): Promise<void> => {
    while (stores.length) await stores.pop()!.close()
  }
  afterEach(closeAll)
  return {
    open(root: string, watch = false, options: Partial<KnowledgeStoreOptions> = {}): KnowledgeStore {
      const store = new KnowledgeStore({ root, redactor: createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] }), watch, ...options })
      stores.push(store)
      return store
    },
    /** Closes every store opened so far (a test that opens the root again, as a fresh process would). */
    closeAll,
    /** A root that does not exist yet, in a fresh temporary folder. */
    tmpRoot: (): string => join(mkdtempSync(join(tmpdir(), `dsh-ks-${prefix}-`)), 'kb'),
  }
}

/** Round 1 of one session in `/ws`, asking why the cache misses, answered by `answer`; `over` on top. */
export const roundDraft = (answer: string, over: Partial<DocumentDraft> = {}): DocumentDraft => ({
  kind: 'raw',
  title: 'Why does the cache miss?',
  cwd: '/ws',
  session: 'session-11112222-0000-4000-8000-000000000000',
  turn: 1,
  sections: [
    { heading: 'Question', text: 'Why does the cache miss?' },
    { heading: 'Answer', text: answer },
  ],
  ...over,
})

/** A store logger that keeps every line, its `%s`/`%d` filled in: all non-debug lines, the warnings, the last start line. */
export function logRecorder() {
  const lines: Array<{ level: string; text: string }> = []
  const at =
    (level: string) =>
    (format: string, ...args: unknown[]) => {
      let i = 0
      lines.push({ level, text: format.replace(/%[sd]/g, () => String(args[i++])) })
    }
  const logger: StoreLogger = { info: at('info'), warn: at('warn'), debug: at('debug') }
  const texts = (keep: (level: string) => boolean) => lines.filter((l) => keep(l.level)).map((l) => l.text)
  return {
    logger,
    lines,
    info: () => texts((level) => level !== 'debug'),
    warnings: () => texts((level) => level === 'warn'),
    scan: () => lines.filter((l) => l.text.startsWith('indexed')).pop()?.text ?? '',
  }
}
