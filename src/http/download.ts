/**
 * An original's bytes as a download: always an attachment (`Content-Disposition: attachment`), typed
 * `application/octet-stream` with `nosniff` and a sandboxing CSP, so a hostile HTML or SVG original can never run
 * as a page of this origin. Streamed from a descriptor opened without following links; never read whole.
 * @module dsh-knowledge-sync/http/download
 */
import { closeSync, createReadStream, fstatSync } from 'node:fs'
import type { ServerResponse } from 'node:http'

/** A read route's answer that is a file: the descriptor is owned (and closed) by the response. */
export class Download {
  constructor(
    readonly fd: number,
    readonly name: string,
  ) {}
}

/** `filename` (ASCII, quotes and controls replaced) and `filename*` (UTF-8) for Content-Disposition (RFC 6266). */
export function dispositionOf(name: string): string {
  const base = name.split('/').pop() || 'original'
  const ascii = base.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`
}

export function sendDownload(res: ServerResponse, download: Download, headOnly: boolean): void {
  let size: number
  try {
    size = fstatSync(download.fd).size
  } catch (error) {
    closeSync(download.fd)
    throw error
  }
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-disposition': dispositionOf(download.name),
    'content-length': size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'",
  })
  if (headOnly || size === 0) {
    closeSync(download.fd)
    res.end()
    return
  }
  // Only the bytes the descriptor had when it was opened: a file that grows meanwhile does not overrun the length.
  const stream = createReadStream('', { fd: download.fd, start: 0, end: size - 1, autoClose: true })
  stream.on('error', () => res.destroy())
  res.on('close', () => stream.destroy())
  stream.pipe(res)
}
