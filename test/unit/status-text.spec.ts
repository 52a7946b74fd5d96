/**
 * Retire and restore edit only the status lines and the notice of a file's own text: a hand-written document (any
 * front matter style; CRLF; a title or not) comes back byte for byte, over a real store.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { retire, restore, supersede } from '../../src/knowledge/corrections/correct.js'
import { NOTICE_MARK } from '../../src/knowledge/relations/relations.js'
import { storeFixture } from '../harness/stores.ts'

const { open, tmpRoot } = storeFixture('status-text')

const HAND_WRITTEN: Record<string, string> = {
  'minimal.md': '---\ntitle: Deploying the API\n---\n# Deploying the API\nRun `make deploy` from the repo root.\n',
  'quoted-title.md': "---\ntitle: 'Proxy: port 3128'   # the build proxy\ntags:\n  - network\n  - ci\n---\n# Proxy\n\nUse port 3128.\n",
  'crlf.md': '---\r\ntitle: Windows box\r\n---\r\n\r\n# Windows box\r\n\r\nRDP on 3389.\r\n',
  'no-title.md': '---\nkind: note\n---\nJust a line, no heading, no final newline',
  'status-at-end.md': '---\ntitle: Old runbook\nowner: ops\n---\n\n# Old runbook\n\n\nSteps.\n',
}

describe('retire then restore', () => {
  it('gives back the exact bytes of hand-written documents', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    for (const [name, text] of Object.entries(HAND_WRITTEN)) writeFileSync(join(root, name), text)
    const store = open(root)
    await store.start()
    for (const [name, text] of Object.entries(HAND_WRITTEN)) {
      const id = name.replace(/\.md$/, '')
      expect(store.get(id), name).toBeDefined()
      await retire(store, { id, reason: 'Replaced by the new runbook.' }, undefined, 'cli')
      const retired = readFileSync(join(root, name), 'utf8')
      expect(retired, name).toContain(NOTICE_MARK)
      expect(retired, name).toContain('status: retired')
      expect(store.get(id)?.status, name).toBe('retired')
      await restore(store, { id }, undefined, 'cli')
      expect(readFileSync(join(root, name), 'utf8'), name).toBe(text)
      expect(store.get(id)?.status ?? 'active', name).toBe('active')
    }
  })

  it('keeps the bytes through a supersede, a retire and a restore: only the status lines and notice differ', async () => {
    const root = tmpRoot()
    mkdirSync(root, { recursive: true })
    const old = HAND_WRITTEN['quoted-title.md']
    writeFileSync(join(root, 'old.md'), old)
    writeFileSync(join(root, 'new.md'), '---\ntitle: New proxy\n---\n# New proxy\n\nPort 8080 now.\n')
    const store = open(root)
    await store.start()
    await supersede(store, { id: 'old', by: 'new', reason: 'moved' }, undefined, 'cli')
    await retire(store, { id: 'old', reason: 'gone' }, undefined, 'cli')
    await restore(store, { id: 'old' }, undefined, 'cli')
    const text = readFileSync(join(root, 'old.md'), 'utf8')
    expect(store.get('old')?.status).toBe('superseded')
    const without = text
      .split('\n')
      .filter((l) => !/^(status|superseded_by):/.test(l))
      .join('\n')
      .replace(new RegExp(`> [^\\n]*${NOTICE_MARK}\\n\\n`), '')
    expect(without).toBe(old)
  })
})
