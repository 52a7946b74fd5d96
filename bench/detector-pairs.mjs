/**
 * Extracts (text, secrets) pairs from trufflehog's detector pattern tests (`pkg/detectors/**​/*_test.go`, the
 * `Test*_Pattern` functions: each case's `input` and `want`), so the redactor can be measured on a corpus nobody here
 * wrote. trufflehog is AGPL-3.0: its test data is not copied into this MIT repository. This script reads a copy the
 * user fetched (a clone or a bare git directory) at the pinned commit and writes the pairs to bench/.data/, which git
 * ignores. Get the copy with:
 *   git clone https://github.com/trufflesecurity/trufflehog /tmp/trufflehog && git -C /tmp/trufflehog checkout <PINNED>
 * Run: `node bench/detector-pairs.mjs <path-to-trufflehog> [commit]` (the bench calls {@link extractPairs}).
 *
 * The Go is evaluated just far enough for these files: string literals (interpreted and raw), `+` concatenation,
 * package-level and function-local `var`/`const` strings, `fmt.Sprintf` with %s/%v/%d/%q, `strings.Repeat`,
 * `strings.Join` and `[]string{…}`. A case whose input or want cannot be evaluated is skipped and counted.
 * @module dsh-knowledge-sync/bench/detector-pairs
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The trufflehog commit the README's figures were measured on. */
export const PINNED = '3ab759fef4bb5935d4fe9ac68b503d05346b8364'

// --- a tiny Go expression reader ----------------------------------------------------------------------------------

class Unsupported extends Error {}

/** Reads Go expressions from `src` starting at `pos`, resolving identifiers through `env`. */
class Reader {
  constructor(src, pos, env) {
    this.src = src
    this.pos = pos
    this.env = env
  }
  ws() {
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++
      else if (this.src.startsWith('//', this.pos)) {
        const e = this.src.indexOf('\n', this.pos)
        this.pos = e === -1 ? this.src.length : e
      } else break
    }
  }
  peek(s) {
    this.ws()
    return this.src.startsWith(s, this.pos)
  }
  eat(s) {
    if (!this.peek(s)) throw new Unsupported(`expected ${s} at ${this.src.slice(this.pos, this.pos + 30)}`)
    this.pos += s.length
  }
  /** expr := term ('+' term)* */
  expr() {
    let v = this.term()
    while (this.peek('+') && !this.peek('++')) {
      this.pos++
      const w = this.term()
      v = typeof v === 'number' && typeof w === 'number' ? v + w : String(v) + String(w)
    }
    return v
  }
  term() {
    this.ws()
    const c = this.src[this.pos]
    if (c === '"') return this.interpreted()
    if (c === '`') {
      const e = this.src.indexOf('`', this.pos + 1)
      const s = this.src.slice(this.pos + 1, e).replace(/\r/g, '')
      this.pos = e + 1
      return s
    }
    if (c === "'") {
      const m = /^'(\\.|[^'\\])'/.exec(this.src.slice(this.pos))
      if (!m) throw new Unsupported('rune')
      this.pos += m[0].length
      return m[1].codePointAt(0)
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]+/.exec(this.src.slice(this.pos))
      this.pos += m[0].length
      return Number(m[0])
    }
    if (this.peek('[]string{')) {
      this.pos += 9
      return this.list('}')
    }
    if (this.peek('[]byte(')) {
      this.pos += 7
      const v = this.expr()
      this.eat(')')
      return v
    }
    if (this.peek('string(')) {
      this.pos += 7
      const v = this.expr()
      this.eat(')')
      return v
    }
    if (this.peek('(')) {
      this.pos++
      const v = this.expr()
      this.eat(')')
      return v
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?/.exec(this.src.slice(this.pos))
    if (!m) throw new Unsupported(`term at ${this.src.slice(this.pos, this.pos + 30)}`)
    this.pos += m[0].length
    const name = m[0]
    if (this.peek('(')) {
      this.pos++
      const args = this.peek(')') ? [] : this.list(')')
      if (name === 'fmt.Sprintf') return sprintf(args[0], args.slice(1))
      if (name === 'strings.Repeat') return String(args[0]).repeat(Number(args[1]))
      if (name === 'strings.Join') return args[0].join(args[1])
      if (name === 'strings.ToUpper') return String(args[0]).toUpperCase()
      if (name === 'strings.ToLower') return String(args[0]).toLowerCase()
      if (name === 'strings.TrimSpace') return String(args[0]).trim()
      if (name === 'base64.StdEncoding.EncodeToString' || name === 'EncodeToString') return Buffer.from(String(args[0])).toString('base64')
      throw new Unsupported(`call ${name}`)
    }
    if (name === 'base64.StdEncoding') {
      this.eat('.EncodeToString(')
      const v = this.expr()
      this.eat(')')
      return Buffer.from(String(v)).toString('base64')
    }
    if (!(name in this.env)) throw new Unsupported(`identifier ${name}`)
    return this.env[name]
  }
  list(close) {
    const out = []
    while (!this.peek(close)) {
      out.push(this.expr())
      if (this.peek(',')) this.pos++
    }
    this.pos += close.length
    return out
  }
  interpreted() {
    let i = this.pos + 1
    let s = ''
    const src = this.src
    while (src[i] !== '"') {
      if (src[i] === '\n' || i >= src.length) throw new Unsupported('unterminated string')
      if (src[i] === '\\') {
        const n = src[i + 1]
        const simple = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' }
        if (n in simple) {
          s += simple[n]
          i += 2
          continue
        }
        if (n === 'x') {
          s += String.fromCharCode(parseInt(src.slice(i + 2, i + 4), 16))
          i += 4
          continue
        }
        if (n === 'u') {
          s += String.fromCodePoint(parseInt(src.slice(i + 2, i + 6), 16))
          i += 6
          continue
        }
        if (n === 'U') {
          s += String.fromCodePoint(parseInt(src.slice(i + 2, i + 10), 16))
          i += 10
          continue
        }
        throw new Unsupported(`escape \\${n}`)
      }
      s += src[i++]
    }
    this.pos = i + 1
    return s
  }
}

function sprintf(format, args) {
  let k = 0
  return String(format).replace(/%([-+ #0]*[0-9]*)([svdqx%])/g, (_, _flags, verb) => {
    if (verb === '%') return '%'
    const a = args[k++]
    if (a === undefined) throw new Unsupported('sprintf arity')
    if (verb === 'q') return JSON.stringify(String(a))
    if (verb === 'x') return Buffer.from(String(a)).toString('hex')
    return Array.isArray(a) ? `[${a.join(' ')}]` : String(a)
  })
}

/** `name = expr` and `name := expr` declarations of strings in `block` (package level or inside a function). */
function declarations(src, env) {
  const re = /(?:^|\n)\s*(?:(?:var|const)\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:string\s*)?:?=\s*(?=["`\w[(])/g
  let m
  while ((m = re.exec(src)) !== null) {
    try {
      const r = new Reader(src, m.index + m[0].length, env)
      const v = r.expr()
      if (typeof v === 'string' || typeof v === 'number' || Array.isArray(v)) env[m[1]] = v
    } catch {
      /* not a string declaration */
    }
  }
  return env
}

/** The cases of every `Test*_Pattern` function in one Go test file. */
export function casesOf(src) {
  const env = declarations(src, {})
  const out = { cases: [], skipped: 0 }
  const fnRe = /func (Test\w*_?Pattern\w*)\(t \*testing\.T\) \{/g
  let f
  while ((f = fnRe.exec(src)) !== null) {
    const end = src.indexOf('\n}\n', f.index)
    const body = src.slice(f.index, end === -1 ? undefined : end)
    const local = declarations(body, { ...env })
    const caseRe = /\n\s*\{\s*\n?\s*name:\s*/g
    let c
    while ((c = caseRe.exec(body)) !== null) {
      try {
        const r = new Reader(body, c.index + c[0].length, local)
        const name = r.expr()
        const fields = {}
        while (r.peek(',')) {
          r.pos++
          if (r.peek('}')) break
          const key = /^\s*([A-Za-z_]\w*)\s*:/.exec(body.slice(r.pos))
          if (!key) break
          r.pos += key[0].length
          fields[key[1]] = r.expr()
        }
        if (typeof fields.input !== 'string' || !Array.isArray(fields.want)) {
          out.skipped++
          continue
        }
        out.cases.push({ name: String(name), text: fields.input, secrets: fields.want.map(String) })
      } catch {
        out.skipped++
      }
    }
  }
  return out
}

/** All pairs from a trufflehog copy (a work tree or a git directory) at `commit`. */
export function extractPairs(repo, commit = PINNED) {
  const gitDir = existsSync(join(repo, '.git')) ? join(repo, '.git') : repo
  const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const files = git('ls-tree', '-r', '--name-only', commit, 'pkg/detectors')
    .split('\n')
    .filter((p) => p.endsWith('_test.go') && !p.includes('integration'))
  const pairs = []
  let skipped = 0
  for (const path of files) {
    const src = git('show', `${commit}:${path}`)
    const { cases, skipped: s } = casesOf(src)
    skipped += s
    const detector = path.replace(/^pkg\/detectors\//, '').split('/')[0]
    for (const c of cases) if (c.secrets.length) pairs.push({ detector, case: c.name, text: c.text, secrets: c.secrets })
  }
  return { commit, files: files.length, pairs, skipped }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const repo = process.argv[2]
  if (!repo) {
    console.error('usage: node bench/detector-pairs.mjs <path-to-trufflehog> [commit]')
    process.exit(2)
  }
  const result = extractPairs(repo, process.argv[3] ?? PINNED)
  const out = join(dirname(fileURLToPath(import.meta.url)), '.data', 'trufflehog-pairs.json')
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, JSON.stringify(result))
  console.log(
    `${result.files} test files at ${result.commit.slice(0, 12)}: ${result.pairs.length} texts with ${result.pairs.reduce((n, p) => n + p.secrets.length, 0)} secrets (${result.skipped} cases skipped) → ${out}`,
  )
}
