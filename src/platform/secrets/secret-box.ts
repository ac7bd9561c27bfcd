import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const VERSION = 'v1'

/**
 * AES-256-GCM for secrets stored in the database (SIP passwords, carrier tokens). `context` is
 * bound as associated data, so a ciphertext copied to another row or column does not decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`secret key must be ${KEY_BYTES} bytes`)
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`
  }

  decrypt(sealed: string, context: string): string {
    const [version, body] = sealed.split(':', 2)
    if (version !== VERSION || !body) throw new Error('unknown secret format')
    const raw = Buffer.from(body, 'base64')
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('secret is truncated')
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
  }
}

export const SECRET_KEY_FILE = 'secret.key'

/**
 * Reads DATA_DIR/secret.key, creating it (32 random bytes, base64, mode 0600) on first use.
 * The file is created with O_EXCL so two starters cannot write different keys.
 */
export function loadOrCreateSecretKey(dataDir: string): Buffer {
  const file = join(dataDir, SECRET_KEY_FILE)
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a ${KEY_BYTES}-byte base64 key`)
  return key
}

const boxes = new Map<string, SecretBox>()

/** The SecretBox of a DATA_DIR, made once per process. */
export function secretBoxFor(dataDir: string): SecretBox {
  let box = boxes.get(dataDir)
  if (!box) {
    box = new SecretBox(loadOrCreateSecretKey(dataDir))
    boxes.set(dataDir, box)
  }
  return box
}
