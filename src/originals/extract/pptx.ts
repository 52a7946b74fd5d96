/**
 * PPTX: a section per slide with its title, its text as a list (tables as rows) and its speaker notes; pictures
 * skipped and counted. Only the requested slides are inflated (the archive's directory says where each is), so a
 * deck of 10,000 slides costs the slides asked for. XML is parsed with fast-xml-parser, entities off (the five XML
 * escapes and character references are decoded here; a DTD is refused by ./zip.ts before parsing).
 * @module dsh-knowledge-sync/originals/extract/pptx
 */
import { posix } from 'node:path'
import { XMLParser } from 'fast-xml-parser'
import { ExtractError, openZip, type ZipArchive } from './zip.js'
import type { Extracted, Unit } from './types.js'

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', processEntities: false, removeNSPrefix: true, preserveOrder: true, trimValues: false })
const flat = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', processEntities: false, removeNSPrefix: true, isArray: (name) => name === 'sldId' || name === 'Relationship' })

const SLIDE_PART = /^ppt\/slides\/slide\d+\.xml$/
const MAX_PART_BYTES = 32 * 1024 * 1024

/** Slides in the archive, counted from its directory alone (nothing inflated). */
export async function countSlides(fd: number, file: string): Promise<number> {
  const zip = await openZip(fd, file)
  try {
    return zip.names.filter((n) => SLIDE_PART.test(n)).length
  } finally {
    zip.close()
  }
}

type Node = Record<string, unknown>
const kids = (node: Node, tag: string): Node[] => (Array.isArray(node[tag]) ? (node[tag] as Node[]) : [])
const attrs = (node: Node): Record<string, string> => (node[':@'] as Record<string, string>) ?? {}
const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@') ?? ''

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m
    }
    return ENTITY[e.toLowerCase()] ?? m
  })
}

/** All descendants with tag `tag`, in document order. */
function find(nodes: Node[], tag: string, out: Node[] = []): Node[] {
  for (const node of nodes) {
    const name = tagOf(node)
    if (name === tag) out.push(node)
    else if (Array.isArray(node[name])) find(node[name] as Node[], tag, out)
  }
  return out
}

/** The text of one `a:p` paragraph: its runs and fields, line breaks kept. */
function paragraphText(p: Node): string {
  let text = ''
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      const name = tagOf(node)
      if (name === '#text') text += decode(String(node['#text']))
      else if (name === 'br') text += ' '
      else if (Array.isArray(node[name])) walk(node[name] as Node[])
    }
  }
  walk(kids(p, 'p'))
  return text.replace(/\s+/g, ' ').trim()
}

/** A shape's placeholder type (`title`, `ctrTitle`, `body`, …) or ''. */
function placeholder(shape: Node): string {
  const ph = find(kids(shape, 'sp'), 'ph')[0]
  return ph ? (attrs(ph).type ?? 'body') : ''
}

interface SlideText {
  title: string
  lines: string[]
  pictures: number
}

function slideText(xml: string): SlideText {
  const root = parser.parse(xml) as Node[]
  let title = ''
  const lines: string[] = []
  for (const shape of find(root, 'sp')) {
    const type = placeholder(shape)
    const paragraphs = find(kids(shape, 'sp'), 'p').filter((p) => tagOf(p) === 'p')
    for (const p of paragraphs) {
      const text = paragraphText(p)
      if (!text) continue
      if (!title && (type === 'title' || type === 'ctrTitle')) title = text
      else {
        const level = Number(attrs(find(kids(p, 'p'), 'pPr')[0] ?? {}).lvl ?? 0)
        lines.push(`${'  '.repeat(Math.min(level, 6))}- ${text}`)
      }
    }
  }
  for (const table of find(root, 'tbl')) {
    for (const tr of find(kids(table, 'tbl'), 'tr')) {
      const cells = find(kids(tr, 'tr'), 'tc').map((tc) => find(kids(tc, 'tc'), 'p').map(paragraphText).filter(Boolean).join(' ').replace(/\|/g, '\\|'))
      if (cells.some(Boolean)) lines.push(`| ${cells.join(' | ')} |`)
    }
  }
  return { title, lines, pictures: find(root, 'pic').length }
}

/** The relationships of a part: id → target resolved against the part's folder. */
async function relationsOf(zip: ZipArchive, part: string): Promise<Array<{ id: string; type: string; target: string }>> {
  const rels = `${posix.dirname(part)}/_rels/${posix.basename(part)}.rels`
  if (!zip.has(rels)) return []
  const parsed = flat.parse((await zip.read(rels, MAX_PART_BYTES)).toString('utf8'))
  return (parsed?.Relationships?.Relationship ?? []).map((r: Record<string, string>) => ({
    id: String(r.Id ?? ''),
    type: String(r.Type ?? ''),
    target: String(r.Target ?? '').startsWith('/') ? String(r.Target).slice(1) : posix.normalize(posix.join(posix.dirname(part), String(r.Target ?? ''))),
  }))
}

/** The slide parts in presentation order (presentation.xml's slide list), else in the directory's numeric order. */
async function slideOrder(zip: ZipArchive): Promise<string[]> {
  const byNumber = zip.names.filter((n) => SLIDE_PART.test(n)).sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1]) - Number(/(\d+)\.xml$/.exec(b)?.[1]))
  if (!zip.has('ppt/presentation.xml')) return byNumber
  const presentation = flat.parse((await zip.read('ppt/presentation.xml', MAX_PART_BYTES)).toString('utf8'))
  const targets = new Map((await relationsOf(zip, 'ppt/presentation.xml')).map((r) => [r.id, r.target]))
  const ordered = (presentation?.presentation?.sldIdLst?.sldId ?? [])
    .map((s: Record<string, string>) => targets.get(String(s.id ?? '')))
    .filter((t: string | undefined): t is string => !!t && zip.has(t))
  return ordered.length ? ordered : byNumber
}

/** Extracts slides `from`…`to` (1-based) of the deck at `full`; `enough` stops early once the caller's budget is spent. */
export async function extractPptx(fd: number, file: string, from: number, to: number, enough: (units: Unit[]) => boolean): Promise<Extracted> {
  const zip = await openZip(fd, file)
  try {
    const slides = await slideOrder(zip)
    if (!slides.length && !zip.has('ppt/presentation.xml')) throw new ExtractError(file, 'has no ppt/presentation.xml: not a PPTX deck')
    const units: Unit[] = []
    let pictures = 0
    for (let i = from - 1; i < Math.min(to, slides.length) && !enough(units); i++) {
      const part = slides[i]
      const slide = slideText((await zip.read(part, MAX_PART_BYTES)).toString('utf8'))
      pictures += slide.pictures
      const notesPart = (await relationsOf(zip, part)).find((r) => r.type.endsWith('/notesSlide') && zip.has(r.target))
      let notes: string[] = []
      if (notesPart) {
        const parsed = parser.parse((await zip.read(notesPart.target, MAX_PART_BYTES)).toString('utf8')) as Node[]
        notes = find(parsed, 'sp')
          .filter((s) => placeholder(s) === 'body')
          .flatMap((s) => find(kids(s, 'sp'), 'p').map(paragraphText))
          .filter(Boolean)
      }
      const body = [slide.lines.join('\n') || '(no text)', notes.length ? `\nNotes:\n${notes.map((n) => `> ${n}`).join('\n')}` : ''].join('\n')
      units.push({ label: `Slide ${i + 1}${slide.title ? `: ${slide.title}` : ''}`, text: body.trim() })
    }
    return { units, total: slides.length, unit: 'slide', from, notes: pictures ? [`${pictures} picture(s) skipped on the slides shown`] : [] }
  } finally {
    zip.close()
  }
}
