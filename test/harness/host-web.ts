/**
 * Plain TypeScript that Node 22 runs with type stripping (the soak bench imports it).
 *
 * The `webServer` service as dsh web's host provides it to rows (`register({kind, path, handler})` → disposer), on a
 * real node:http server on 127.0.0.1: the project does not depend on `@deepseek-ai/dsh-host-webserver`, and the
 * in-process loop needs the same contract for the http row. An unclaimed path answers 404 JSON here (dsh answers
 * its index.html; the rows never rely on either).
 */
import type { Context } from '@deepseek-ai/cordis'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown
export interface HostRoute {
  kind: 'exact' | 'prefix'
  path: string
  handler: Handler
}
export interface HostWebServer {
  register(route: HostRoute): () => void
  readonly routes: ReadonlySet<HostRoute>
  url: string
}

export const name = 'test-host-webserver'

export async function apply(ctx: Context): Promise<void> {
  const routes = new Set<HostRoute>()
  const sockets = new Set<import('node:net').Socket>()
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const route = [...routes].find((r) => (r.kind === 'exact' ? path === r.path : path === r.path || path.startsWith(`${r.path}/`)))
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"error":"unclaimed"}')
      return
    }
    Promise.resolve(route.handler(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const service: HostWebServer = {
    register(route) {
      routes.add(route)
      return () => void routes.delete(route)
    },
    routes,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  }
  ctx.provide('webServer', service)
  ctx.effect(
    () => () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
    'test web server',
  )
}
