/**
 * DOCX: headings, paragraphs, lists and tables as Markdown (mammoth → HTML → ./markdown.ts); images skipped and
 * counted. The archive is checked by ./zip.ts first (directory, sizes, inflated total, no DTD) because mammoth
 * inflates it its own way, in memory.
 * @module dsh-knowledge-sync/originals/extract/docx
 */
import { readFileSync } from 'node:fs'
import mammoth from 'mammoth'
import { ExtractError, openZip } from './zip.js'
import { htmlToMarkdown } from './markdown.js'

/** The document as Markdown, with the number of images skipped. */
export async function docxMarkdown(fd: number, file: string): Promise<{ markdown: string; images: number }> {
  const zip = await openZip(fd, file)
  try {
    if (!zip.has('word/document.xml')) throw new ExtractError(file, 'has no word/document.xml: not a DOCX document')
    await zip.verify()
  } finally {
    zip.close()
  }
  let images = 0
  let result
  try {
    result = await mammoth.convertToHtml(
      { buffer: readFileSync(fd) },
      {
        convertImage: mammoth.images.imgElement(async () => {
          images++
          return { src: '' }
        }),
      },
    )
  } catch (error) {
    throw new ExtractError(file, `cannot be read as a DOCX document: ${(error as Error).message}`)
  }
  return { markdown: htmlToMarkdown(result.value), images }
}
