/**
 * A real HTTP server on 127.0.0.1 for the sync tests: routes are functions of the request, and every request is
 * recorded (path, headers, time) so tests can assert round trips, conditional headers and spacing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Seen {
  path: string
  headers: IncomingMessage['headers']
  at: number
}
export type Route = (req: IncomingMessage, res: ServerResponse) => void

export interface WebServer {
  url: string
  port: number
  seen: Seen[]
  routes: Map<string, Route>
  close(): Promise<void>
}

export async function startWebServer(routes: Record<string, Route> = {}): Promise<WebServer> {
  const map = new Map(Object.entries(routes))
  const seen: Seen[] = []
  const sockets = new Set<import('node:net').Socket>()
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    seen.push({ path, headers: req.headers, at: Date.now() })
    const route = map.get(path)
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
      return
    }
    route(req, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    routes: map,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A route answering `body` with `type` (and optional extra headers). */
export const text =
  (body: string, type = 'text/markdown; charset=utf-8', headers: Record<string, string> = {}): Route =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers })
    res.end(body)
  }

export const redirect =
  (location: string, status = 302): Route =>
  (_req, res) => {
    res.writeHead(status, { location })
    res.end()
  }
