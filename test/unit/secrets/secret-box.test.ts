import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadOrCreateSecretKey, SecretBox } from '../../../src/platform/secrets/index.ts'

describe('secret box', () => {
  test('the key is generated once into DATA_DIR/secret.key with mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-test-'))
    try {
      const a = loadOrCreateSecretKey(dir)
      const b = loadOrCreateSecretKey(dir)
      expect(a.equals(b)).toBe(true)
      expect(a.length).toBe(32)
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600)
      expect(Buffer.from(readFileSync(join(dir, 'secret.key'), 'utf8').trim(), 'base64').equals(a)).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('round-trips, never repeats a ciphertext, and refuses another context or a tampered text', () => {
    const box = new SecretBox(Buffer.alloc(32, 7))
    const sealed = box.encrypt('hunter2', 'row:1')
    expect(sealed).not.toContain('hunter2')
    expect(box.encrypt('hunter2', 'row:1')).not.toBe(sealed)
    expect(box.decrypt(sealed, 'row:1')).toBe('hunter2')
    expect(() => box.decrypt(sealed, 'row:2')).toThrow()
    const raw = Buffer.from(sealed.slice(3), 'base64')
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1
    expect(() => box.decrypt(`v1:${raw.toString('base64')}`, 'row:1')).toThrow()
    expect(() => new SecretBox(Buffer.alloc(32, 8)).decrypt(sealed, 'row:1')).toThrow()
  })
})
