/**
 * The page's Markdown reads a document, not its source (issue 28, items 2 and 3): links by id become in-page links,
 * sync's marker comments become one synced section with its source, the upstream's headings sit below the
 * document's own, and any other HTML comment is hidden. The synced body is what sync really writes (sectionBody).
 * @module dsh-knowledge-sync/test/unit/markdown-document
 */
import { describe, expect, it } from 'vitest'
import { type Block, parseBlocks, parseInline } from '../../client/markdown.js'
import { sectionBody } from '../../src/knowledge/documents/upstream.js'

const text = (blocks: Block[]): string => JSON.stringify(blocks)

describe('links by id', () => {
  it('a bare id target is a document link; a relative path or a dotted name stays text', () => {
    expect(parseInline('Superseded by [CI cache key](notesab5-n3) on 2026-12-01')).toEqual([
      { type: 'text', text: 'Superseded by ' },
      { type: 'doc', id: 'notesab5-n3', children: [{ type: 'text', text: 'CI cache key' }] },
      { type: 'text', text: ' on 2026-12-01' },
    ])
    expect(parseInline('[x](../a/b.md)')).toEqual([{ type: 'text', text: '[x](../a/b.md)' }])
    expect(parseInline('[x](javascript:alert(1))')).toEqual([{ type: 'text', text: '[x](javascript:alert(1))' }])
  })
})

describe('synced sections', () => {
  const body = `## Deploy\n\n<!-- upstream:start name="deploy" -->\n${sectionBody('https://example.test/deploy.md', '# Deploy guide\n\n## Steps\n\n- run it\n- check it', '\n')}<!-- upstream:end -->\n\n## Own notes\n\nMine.`

  it('become one block with the source, the markers never text, and the bullet list not glued to a marker', () => {
    const blocks = parseBlocks(body)
    expect(text(blocks)).not.toContain('upstream:')
    const synced = blocks.find((b) => b.type === 'synced')
    expect(synced).toMatchObject({ type: 'synced', name: 'deploy', source: 'https://example.test/deploy.md' })
    const list = (synced as { blocks: Block[] }).blocks.find((b) => b.type === 'list') as { items: Block[][] }
    expect(list.items.map((i) => i[0])).toEqual([
      { type: 'paragraph', text: 'run it' },
      { type: 'paragraph', text: 'check it' },
    ])
  })

  it("demotes the upstream's headings below the heading the section sits under", () => {
    const synced = parseBlocks(body).find((b) => b.type === 'synced') as { blocks: Block[] }
    const levels = synced.blocks.filter((b) => b.type === 'heading').map((b) => (b as { level: number }).level)
    expect(levels).toEqual([3, 4])
    // At the top of a document (under its title only), the upstream H1 becomes an H2.
    const top = parseBlocks(`<!-- upstream:start name="a" -->\n# Upstream\n<!-- upstream:end -->`)[0] as { blocks: Block[] }
    expect(top.blocks[0]).toEqual({ type: 'heading', level: 2, text: 'Upstream' })
  })

  it('hides other comments, on their own lines or inline, and stays linear on many unclosed starts', () => {
    expect(parseBlocks('a <!-- hidden --> b\n\n<!-- one\ntwo -->\n\nc')).toEqual([
      { type: 'paragraph', text: 'a <!-- hidden --> b' },
      { type: 'paragraph', text: 'c' },
    ])
    expect(parseInline('a <!-- hidden --> b')).toEqual([{ type: 'text', text: 'a  b' }])
    const hostile = '<!-- upstream:start name="x" -->\n'.repeat(20_000)
    expect(parseBlocks(hostile)).toEqual([])
  })
})
