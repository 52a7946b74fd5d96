/**
 * Tags a person or the model gives keep any script (issue 28, item 22): `knowledge_note`'s arguments and the CLI's
 * `--tags` go through one draft step, which used to drop every character outside ASCII `\w` (性能 vanished).
 */
import { describe, expect, it } from 'vitest'
import { redactDraft } from '../../src/knowledge/documents/draft.js'
import { noteDraft, parseNoteArgs } from '../../src/note/note-args.js'
import { createRedactor } from '../../src/redact/redactor.js'
import { tagKey } from '../../src/search/filter.js'

const redactor = () => createRedactor({ enabled: true, mask: '[REDACTED]', patterns: [] })
const tagsOf = async (tags: string[]) => {
  const args = parseNoteArgs({ title: 'Redis latency', finding: 'SCAN stalls redis on a big keyspace.', tags })
  return (await redactDraft(noteDraft(args, { session: 's', cwd: '/w', suffix: 'n1' }), redactor())).tags
}

describe('note tags', () => {
  it('keep letters and digits of any script, NFKC-folded and lowercased', async () => {
    expect(await tagsOf(['redis', '性能', 'ＣＩ', 'Café', 'キャッシュ', 'кэш', 'e\u0301te\u0301'])).toEqual(['redis', '性能', 'ci', 'café', 'キャッシュ', 'кэш', 'été'])
  })

  it('turn punctuation and spaces into one dash, and drop what is left empty', async () => {
    expect(await tagsOf(['node 22', '数据库/索引', '!!!', '  '])).toEqual(['node-22', '数据库-索引'])
  })

  it('are compared in the same form the search filter uses', () => {
    expect(tagKey(' ＣＩ ')).toBe('ci')
    expect(tagKey('性能')).toBe('性能')
  })
})
