/**
 * The sections of a document body (its `## ` headings), for reading one part of a long document. Headings inside
 * fenced code blocks do not count. Pure.
 * @module dsh-knowledge-sync/recall/sections
 */

/** One `## ` section: its heading text and its Markdown, heading line included. */
export interface DocSection {
  name: string
  text: string
}

/** The body split at its `## ` headings: what comes before the first one (the `# title`), then each section. */
export function splitSections(body: string): { head: string; sections: DocSection[] } {
  const lines = body.split('\n')
  const sections: DocSection[] = []
  const head: string[] = []
  let current: { name: string; lines: string[] } | undefined
  let fence: string | undefined
  for (const line of lines) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker) {
      if (!fence) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
    }
    const heading = fence ? undefined : /^##[ \t]+(.+?)[ \t#]*$/.exec(line)?.[1]
    if (heading && !line.startsWith('###')) {
      if (current) sections.push({ name: current.name, text: current.lines.join('\n').trimEnd() })
      current = { name: heading.trim(), lines: [line] }
    } else if (current) current.lines.push(line)
    else head.push(line)
  }
  if (current) sections.push({ name: current.name, text: current.lines.join('\n').trimEnd() })
  return { head: head.join('\n').trimEnd(), sections }
}

/**
 * The section `wanted` names: an exact match (case-insensitive) first, else the only section whose name starts with
 * it (so `appendix` finds "Appendix: the raw round").
 */
export function findSection(sections: readonly DocSection[], wanted: string): DocSection | undefined {
  const key = wanted
    .trim()
    .toLowerCase()
    .replace(/^#+\s*/, '')
  if (!key) return undefined
  const exact = sections.find((s) => s.name.toLowerCase() === key)
  if (exact) return exact
  const prefixed = sections.filter((s) => s.name.toLowerCase().startsWith(key))
  return prefixed.length === 1 ? prefixed[0] : undefined
}
