// The Docker build context never holds the host's data/ (admin key, secret.key, database),
// node_modules, dist, .git, logs or .env; and the Dockerfile copies only what the context holds.
// Docker is not installed here: scripts/docker-context.ts applies .dockerignore as Docker does.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { contextFiles, isIgnored, parseDockerignore } from '../../../scripts/docker-context.ts'

const ROOT = join(import.meta.dir, '../../..')
const IGNORE = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
const DOCKERFILE = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8')
const scratch = mkdtempSync(join(tmpdir(), 'docker-context-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const NEVER = /(^|\/)(data|node_modules|dist|\.git)(\/|$)|(^|\/)(secret\.key|admin-api-key|\.env(\..*)?)$|\.log$|\.db(-wal|-shm)?$/

describe('.dockerignore matching, as Docker applies it', () => {
  test.each([
    // pattern list, path, left out?
    [['*', '!src'], 'src/a/b.ts', false],
    [['*', '!src'], 'data/secret.key', true],
    [['*', '!src', '**/node_modules'], 'src/x/node_modules/y.js', true],
    [['data'], 'data', true],
    [['data'], 'data/deep/file', true],
    [['data'], 'src/data/file', false], // a plain name is rooted, unlike .gitignore
    [['**/data'], 'src/data/file', true],
    [['**/*.log'], 'x.log', true],
    [['*.log'], 'a/x.log', false],
    [['docs/*.md'], 'docs/a/b.md', false],
    [['models/stt/*', '!models/stt/README.md'], 'models/stt/README.md', false],
    [['models/stt/*', '!models/stt/README.md'], 'models/stt/big/encoder.onnx', true],
    [['/dist/'], 'dist/voice-agent', true],
    [['a?c'], 'abc', true],
    [['a[0-9]'], 'a7', true],
    [['!src', '*'], 'src/x', true], // the last matching line wins
  ] as const)('%p leaves out %p: %p', (lines, path, ignored) => {
    expect(isIgnored(parseDockerignore(lines.join('\n')), path)).toBe(ignored)
  })
})

describe('the build context', () => {
  test('a checkout with a used data/, node_modules, dist, logs and .env sends none of them, nor any key', () => {
    const files = [
      'data/admin-api-key', 'data/secret.key', 'data/appliance.db', 'data/appliance.db-wal', 'data/recordings/ws/call.wav', 'data/README.md',
      'node_modules/elysia/index.js', 'dist/voice-agent', '.git/HEAD', 'server.log', 'src/features/calls/debug.log', '.env', '.env.production',
      'src/main.ts', 'src/features/console/web/app.mjs', 'src/x/node_modules/y.js', 'src/x/secret.key',
      'scripts/build.ts', 'models/README.md', 'models/stt/README.md', 'models/stt/zipformer/encoder.onnx',
      'package.json', 'package-lock.json', 'tsconfig.json', 'bunfig.toml', 'README.md', 'test/output/shot.png', 'BENCHMARKS.md',
    ]
    for (const f of files) {
      mkdirSync(join(scratch, dirname(f)), { recursive: true })
      writeFileSync(join(scratch, f), 'x')
    }
    expect(contextFiles(scratch, IGNORE)).toEqual([
      'bunfig.toml', 'models/README.md', 'models/stt/README.md', 'package-lock.json', 'package.json', 'scripts/build.ts',
      'src/features/console/web/app.mjs', 'src/main.ts', 'tsconfig.json',
    ])
  })

  test('this checkout: nothing that must stay on the host, and every tracked source file the build needs', () => {
    const files = contextFiles(ROOT)
    expect(files.filter((f) => NEVER.test(f))).toEqual([])
    const tracked = Bun.spawnSync(['git', 'ls-files', 'src', 'scripts', 'models', 'package.json', 'package-lock.json', 'tsconfig.json', 'bunfig.toml'], { cwd: ROOT }).stdout.toString().split('\n').filter(Boolean)
    expect(tracked.length).toBeGreaterThan(100)
    const inContext = new Set(files)
    // a tracked file may be deleted in the work tree while someone edits; only present ones count
    expect(tracked.filter((f) => !inContext.has(f) && Bun.file(join(ROOT, f)).size > 0)).toEqual([])
  })

  test('every COPY of the build stage names something the context holds, and there is no COPY . .', () => {
    const files = contextFiles(ROOT)
    const copies = DOCKERFILE.split('\n').filter((l) => /^COPY\s/.test(l) && !l.includes('--from='))
    expect(copies.length).toBeGreaterThan(0)
    for (const line of copies) {
      const sources = line.trim().split(/\s+/).slice(1, -1)
      expect(sources).not.toContain('.')
      for (const s of sources) expect(files.some((f) => f === s || f.startsWith(`${s}/`)), `${line}: ${s}`).toBe(true)
    }
  })

  test('the image checks its health with the executable itself and runs as a non-root user', () => {
    expect(DOCKERFILE).toMatch(/^HEALTHCHECK .*CMD \["\/usr\/local\/bin\/voice-agent", "health"\]$/m)
    const user = DOCKERFILE.match(/^USER (\S+)$/m)?.[1]
    expect(user).toBeDefined()
    expect(['root', '0']).not.toContain(user!)
    // HEALTHCHECK and the start both come after USER, in the runtime stage
    expect(DOCKERFILE.lastIndexOf('USER ')).toBeGreaterThan(DOCKERFILE.lastIndexOf('FROM '))
  })
})
