/**
 * A small, safe Markdown renderer for knowledge documents. A document holds whatever a conversation contained —
 * including `<script>`, `<img onerror>` and `javascript:` links — so nothing here produces HTML: the source is parsed
 * into plain data (blocks, then inline spans) and rendered as React elements whose text React escapes. Raw HTML
 * stays visible as text. Links are made only for http(s) URLs, and open with rel="noopener noreferrer".
 *
 * Supported: ATX headings, paragraphs (line breaks kept), fenced code, inline code, bullet and ordered lists
 * (nested by indentation), block quotes, thematic breaks, bold, italic, links and bare http(s) URLs.
 * Bounded: the source is capped and nesting is limited, so a hostile document costs linear time.
 * The parsing (parseBlocks, parseInline, safeHref) is in ./markdown-parse.ts and re-exported here.
 * @module dsh-knowledge-sync/client/markdown
 */
import { createContext, Fragment, useContext, type CSSProperties, type ReactNode } from 'react'
import { type Block, type Inline, parseBlocks, parseInline } from './markdown-parse.js'
import { font, palette } from './styles.js'

export { MAX_SOURCE, parseBlocks, parseInline, safeHref } from './markdown-parse.js'
export type { Block, Inline } from './markdown-parse.js'

const codeStyle: CSSProperties = {
  fontFamily: font.mono,
  fontSize: '0.9em',
  padding: '1px 5px',
  borderRadius: 4,
  background: palette.codeBg,
}
const preStyle: CSSProperties = {
  fontFamily: font.mono,
  fontSize: 12.5,
  lineHeight: 1.5,
  padding: '10px 12px',
  margin: '8px 0',
  borderRadius: 8,
  background: palette.codeBg,
  border: `1px solid ${palette.border}`,
  overflowX: 'auto',
  whiteSpace: 'pre',
}
const headingSizes = [0, 20, 17, 15, 14, 13, 13]

/** What a rendered document can do beyond text: open a linked document in the page, label a synced section. */
export interface MarkdownActions {
  /** Opens the document a `[text](<id>)` link names; without it such links read as their text. */
  onOpen?: (id: string) => void
  /** The badge over a synced section ("synced from <source>, <when>"). */
  synced?: (section: { name: string; source?: string }) => ReactNode
}
const Actions = createContext<MarkdownActions>({})

function DocLink({ id, children }: { id: string; children: ReactNode }) {
  const { onOpen } = useContext(Actions)
  if (!onOpen) return <>{children}</>
  return (
    <a
      href={`#knowledge/${encodeURIComponent(id)}`}
      data-testid="knowledge-doc-link"
      data-id={id}
      style={{ color: palette.link }}
      onClick={(e) => {
        e.preventDefault()
        onOpen(id)
      }}
    >
      {children}
    </a>
  )
}

function SyncedSection({ name, source, children }: { name: string; source?: string; children: ReactNode }) {
  const { synced } = useContext(Actions)
  return (
    <section data-testid="knowledge-synced" data-section={name} aria-label={name} style={{ margin: '10px 0', padding: '2px 0 2px 12px', borderLeft: `3px solid ${palette.border}` }}>
      {synced?.({ name, ...(source !== undefined ? { source } : {}) })}
      {children}
    </section>
  )
}

function renderInline(spans: Inline[]): ReactNode[] {
  return spans.map((span, k) => {
    switch (span.type) {
      case 'text':
        return <Fragment key={k}>{span.text}</Fragment>
      case 'code':
        return (
          <code key={k} style={codeStyle}>
            {span.text}
          </code>
        )
      case 'strong':
        return <strong key={k}>{renderInline(span.children)}</strong>
      case 'em':
        return <em key={k}>{renderInline(span.children)}</em>
      case 'link':
        return (
          <a key={k} href={span.href} target="_blank" rel="noopener noreferrer" style={{ color: palette.link }}>
            {renderInline(span.children)}
          </a>
        )
      case 'doc':
        return (
          <DocLink key={k} id={span.id}>
            {renderInline(span.children)}
          </DocLink>
        )
    }
  })
}

function renderBlocks(blocks: Block[], tight = false): ReactNode[] {
  return blocks.map((block, k) => {
    switch (block.type) {
      case 'heading': {
        const Tag = `h${block.level}` as 'h1'
        return (
          <Tag key={k} style={{ fontSize: headingSizes[block.level], fontWeight: 600, margin: '14px 0 6px', lineHeight: 1.35 }}>
            {renderInline(parseInline(block.text))}
          </Tag>
        )
      }
      case 'code':
        return (
          <pre key={k} style={preStyle} data-lang={block.lang || undefined}>
            <code>{block.text}</code>
          </pre>
        )
      case 'rule':
        return <hr key={k} style={{ border: 0, borderTop: `1px solid ${palette.border}`, margin: '12px 0' }} />
      case 'quote':
        return (
          <blockquote key={k} style={{ margin: '8px 0', padding: '2px 12px', borderLeft: `3px solid ${palette.border}`, color: palette.secondary }}>
            {renderBlocks(block.blocks)}
          </blockquote>
        )
      case 'list': {
        const items = block.items.map((item, n) => {
          const single = item.length === 1 && item[0].type === 'paragraph'
          return (
            <li key={n} style={{ margin: '2px 0' }}>
              {single ? renderInline(parseInline((item[0] as { text: string }).text)) : renderBlocks(item, true)}
            </li>
          )
        })
        const style: CSSProperties = { margin: '6px 0', paddingLeft: 22 }
        return block.ordered ? (
          <ol key={k} start={block.start} style={style}>
            {items}
          </ol>
        ) : (
          <ul key={k} style={style}>
            {items}
          </ul>
        )
      }
      case 'synced':
        return (
          <SyncedSection key={k} name={block.name} source={block.source}>
            {renderBlocks(block.blocks)}
          </SyncedSection>
        )
      case 'paragraph':
        return (
          <p key={k} style={{ margin: tight ? '2px 0' : '6px 0', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {renderInline(parseInline(block.text))}
          </p>
        )
    }
  })
}

/** Renders Markdown source as React elements (never as HTML). */
export function Markdown({ source, onOpen, synced }: { source: string } & MarkdownActions) {
  return (
    <Actions.Provider value={{ onOpen, synced }}>
      <div data-testid="knowledge-markdown" style={{ fontSize: 13.5, lineHeight: 1.6, color: palette.text, overflowWrap: 'anywhere' }}>
        {renderBlocks(parseBlocks(source))}
      </div>
    </Actions.Provider>
  )
}

/** Renders one line of inline Markdown as React elements. */
export function InlineMarkdown({ source }: { source: string }) {
  return <>{renderInline(parseInline(source))}</>
}

/**
 * A search snippet: plain text with its matches as highlight spans (`<mark>`), never parsed as Markdown, so a glob's
 * `*` or a `[` stays what it is. Marks outside the text or out of order are ignored.
 */
export function Highlighted({ text, marks }: { text: string; marks: ReadonlyArray<readonly [number, number]> }) {
  const out: ReactNode[] = []
  let at = 0
  for (const [start, end] of marks) {
    if (!(Number.isInteger(start) && Number.isInteger(end) && start >= at && end > start && end <= text.length)) continue
    if (start > at) out.push(text.slice(at, start))
    out.push(
      <mark key={start} style={markStyle}>
        {text.slice(start, end)}
      </mark>,
    )
    at = end
  }
  if (at < text.length) out.push(text.slice(at))
  return <>{out}</>
}
const markStyle: CSSProperties = { background: 'transparent', color: palette.text, fontWeight: 600 }
