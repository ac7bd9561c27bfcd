// The SRTP ciphers on OpenSSL's libcrypto (libssl3, on every Debian and Ubuntu), called through
// bun:ffi. A few native calls per packet on buffers the stream keeps, and no object allocated
// per packet: the runtime's crypto (cm.ts, gcm.ts) allocates a cipher or hasher copy and a
// result buffer per packet, and on a busy media thread that allocation, not the cipher, is what
// costs (BENCHMARKS.md, SRTP). libsrtp itself measured slower here: Debian builds it on NSS.
// Every call checks its range (and key and IV lengths) first: a pointer is past any bounds
// check. A failed libcrypto call throws: a packet is never left half sealed or sent in clear.
import { dlopen, FFIType, ptr, type Pointer } from 'bun:ffi'
import type { SessionKeys } from './keys.ts'

const { ptr: p, i32, u64 } = FFIType
const SYMBOLS = {
  EVP_CIPHER_CTX_new: { args: [], returns: p },
  EVP_CIPHER_CTX_free: { args: [p], returns: FFIType.void },
  EVP_CIPHER_CTX_ctrl: { args: [p, i32, i32, p], returns: i32 },
  EVP_aes_128_ctr: { args: [], returns: p },
  EVP_aes_128_gcm: { args: [], returns: p },
  EVP_EncryptInit_ex: { args: [p, p, p, p, p], returns: i32 },
  EVP_EncryptUpdate: { args: [p, p, p, p, i32], returns: i32 },
  EVP_EncryptFinal_ex: { args: [p, p, p], returns: i32 },
  EVP_DecryptInit_ex: { args: [p, p, p, p, p], returns: i32 },
  EVP_DecryptUpdate: { args: [p, p, p, p, i32], returns: i32 },
  EVP_DecryptFinal_ex: { args: [p, p, p], returns: i32 },
  SHA1_Init: { args: [p], returns: i32 },
  SHA1_Update: { args: [p, p, u64], returns: i32 },
  SHA1_Final: { args: [p, p], returns: i32 },
} as const

type LibCrypto = ReturnType<typeof dlopen<typeof SYMBOLS>>['symbols']

const LIBRARY = 'libcrypto.so.3'
const EVP_CTRL_AEAD_GET_TAG = 0x10
const EVP_CTRL_AEAD_SET_TAG = 0x11
/** sizeof(SHA_CTX) is 96; the states are kept in buffers with room to spare. */
const SHA_STATE = 128
const GCM_TAG = 16

let loaded: LibCrypto | null | undefined
let failure = ''

/** libcrypto's functions, loaded once per thread; null when the library is not there. */
export function libcrypto(): LibCrypto | null {
  if (loaded !== undefined) return loaded
  try {
    loaded = dlopen(LIBRARY, SYMBOLS).symbols
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err)
    loaded = null
  }
  return loaded
}

/** Why libcrypto() returned null. */
export function libcryptoFailure(): string {
  return failure
}

const contexts = new FinalizationRegistry<{ lib: LibCrypto; ctx: Pointer }>(({ lib, ctx }) => lib.EVP_CIPHER_CTX_free(ctx))

function cipherContext(owner: object, lib: LibCrypto): Pointer {
  const ctx = lib.EVP_CIPHER_CTX_new() as Pointer | null
  if (!ctx) throw new Error('EVP_CIPHER_CTX_new failed')
  contexts.register(owner, { lib, ctx })
  return ctx
}

function ok(status: number, what: string): void {
  if (status !== 1) throw new Error(`libcrypto ${what} failed`)
}

function lengthIs(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length) throw new RangeError(`${what} is ${bytes.length} bytes, not ${length}`)
}

function inRange(buf: Uint8Array, from: number, end: number, extra: number): void {
  if (!(from >= 0 && from <= end && end + extra <= buf.length)) throw new RangeError(`SRTP range [${from}, ${end}) + ${extra} is outside a ${buf.length}-byte buffer`)
}

/** AES-128 in counter mode and HMAC-SHA1 from precomputed pad states: the cm.ts CmCipher shape. */
export class OpenSslCmStream {
  readonly engine = 'openssl'
  readonly #lib: LibCrypto
  readonly #ctx: Pointer
  readonly #salt: Uint8Array
  readonly #iv = new Uint8Array(16)
  readonly #outLength = new Int32Array(1)
  readonly #inner = new Uint8Array(SHA_STATE)
  readonly #outer = new Uint8Array(SHA_STATE)
  readonly #work = new Uint8Array(SHA_STATE)
  readonly #digest = new Uint8Array(20)
  readonly #roc = new Uint8Array(4)

  constructor(lib: LibCrypto, keys: SessionKeys) {
    lengthIs(keys.encryption, 16, 'the AES-CM session key')
    lengthIs(keys.salt, 14, 'the AES-CM session salt')
    this.#lib = lib
    this.#ctx = cipherContext(this, lib)
    ok(lib.EVP_EncryptInit_ex(this.#ctx, lib.EVP_aes_128_ctr(), null, keys.encryption, null), 'AES-128-CTR key setup')
    this.#salt = keys.salt.slice()
    const pad = new Uint8Array(64)
    for (const [state, byte] of [[this.#inner, 0x36], [this.#outer, 0x5c]] as const) {
      pad.fill(byte)
      for (let i = 0; i < keys.auth.length; i++) pad[i]! ^= keys.auth[i]!
      ok(lib.SHA1_Init(state), 'SHA1_Init')
      ok(lib.SHA1_Update(state, pad, 64), 'SHA1_Update')
    }
    pad.fill(0)
  }

  /** XORs the keystream for (ssrc, index) into buf[from, end): IV = salt ^ ssrc << 64 ^ index << 16. */
  crypt(buf: Uint8Array, from: number, end: number, ssrc: number, index: number): void {
    inRange(buf, from, end, 0)
    if (end === from) return
    const iv = this.#iv
    iv.set(this.#salt)
    iv[4]! ^= ssrc >>> 24
    iv[5]! ^= (ssrc >>> 16) & 0xff
    iv[6]! ^= (ssrc >>> 8) & 0xff
    iv[7]! ^= ssrc & 0xff
    const high = Math.floor(index / 0x100000000)
    iv[8]! ^= (high >>> 8) & 0xff
    iv[9]! ^= high & 0xff
    iv[10]! ^= index >>> 24
    iv[11]! ^= (index >>> 16) & 0xff
    iv[12]! ^= (index >>> 8) & 0xff
    iv[13]! ^= index & 0xff
    const lib = this.#lib
    const at = ptr(buf, from)
    ok(lib.EVP_EncryptInit_ex(this.#ctx, null, null, null, iv), 'AES-CTR IV')
    ok(lib.EVP_EncryptUpdate(this.#ctx, at, this.#outLength, at, end - from), 'AES-CTR')
  }

  /** HMAC-SHA1 over buf[0, end); valid until the next call. */
  mac(buf: Uint8Array, end: number): Uint8Array {
    return this.macOfReceived(buf, end, -1)
  }

  /** HMAC-SHA1 over buf[0, end) and then `roc` unless it is -1; `buf` is read where it lies. */
  macOfReceived(buf: Uint8Array, end: number, roc: number): Uint8Array {
    inRange(buf, 0, end, 0)
    const lib = this.#lib
    const work = this.#work
    const digest = this.#digest
    work.set(this.#inner)
    ok(lib.SHA1_Update(work, buf, end), 'SHA1_Update')
    if (roc >= 0) {
      const r = this.#roc
      r[0] = roc >>> 24
      r[1] = (roc >>> 16) & 0xff
      r[2] = (roc >>> 8) & 0xff
      r[3] = roc & 0xff
      ok(lib.SHA1_Update(work, r, 4), 'SHA1_Update')
    }
    ok(lib.SHA1_Final(digest, work), 'SHA1_Final')
    work.set(this.#outer)
    ok(lib.SHA1_Update(work, digest, 20), 'SHA1_Update')
    ok(lib.SHA1_Final(digest, work), 'SHA1_Final')
    return digest
  }

  /** Decrypts buf[from, end) in place (counter mode is its own inverse). */
  decryptReceived(buf: Uint8Array, from: number, end: number, ssrc: number, index: number): void {
    this.crypt(buf, from, end, ssrc, index)
  }
}

/** The bounds of a GCM seal or open: the data and its tag, associated data in the buffer, a 12-byte IV. */
function checkGcm(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): void {
  inRange(buf, from, end, GCM_TAG)
  if (typeof aad === 'number') inRange(buf, 0, aad, 0)
  lengthIs(iv, 12, 'an AES-GCM IV')
}

/** AES-128-GCM with a 16-byte tag: the gcm.ts GcmCipher shape. */
export class OpenSslGcmStream {
  readonly engine = 'openssl'
  readonly #lib: LibCrypto
  readonly #seal: Pointer
  readonly #open: Pointer
  readonly #outLength = new Int32Array(1)
  #kept = new Uint8Array(0)

  constructor(lib: LibCrypto, keys: SessionKeys) {
    lengthIs(keys.encryption, 16, 'the AES-GCM session key')
    this.#lib = lib
    this.#seal = cipherContext(this, lib)
    this.#open = cipherContext(this, lib)
    const gcm = lib.EVP_aes_128_gcm()
    ok(lib.EVP_EncryptInit_ex(this.#seal, gcm, null, keys.encryption, null), 'AES-128-GCM key setup')
    ok(lib.EVP_DecryptInit_ex(this.#open, gcm, null, keys.encryption, null), 'AES-128-GCM key setup')
  }

  /** Encrypts buf[from, end) in place with `aad` (buf[0, aad) when a number) and writes the tag at `end`. */
  seal(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): void {
    checkGcm(buf, from, end, iv, aad)
    const lib = this.#lib
    const ctx = this.#seal
    const out = this.#outLength
    ok(lib.EVP_EncryptInit_ex(ctx, null, null, null, iv), 'AES-GCM IV')
    ok(lib.EVP_EncryptUpdate(ctx, null, out, typeof aad === 'number' ? buf : aad, typeof aad === 'number' ? aad : aad.length), 'AES-GCM AAD')
    const at = ptr(buf, from)
    if (end > from) ok(lib.EVP_EncryptUpdate(ctx, at, out, at, end - from), 'AES-GCM')
    ok(lib.EVP_EncryptFinal_ex(ctx, ptr(buf, end), out), 'AES-GCM final')
    ok(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, GCM_TAG, ptr(buf, end)), 'AES-GCM tag')
  }

  /** Checks the tag at `end` and decrypts buf[from, end) in place; false, and `buf` as it came, when the tag is wrong. */
  open(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): boolean {
    checkGcm(buf, from, end, iv, aad)
    if (this.#kept.length < buf.length) this.#kept = new Uint8Array(Math.max(buf.length, 256))
    this.#kept.set(buf)
    const lib = this.#lib
    const ctx = this.#open
    const out = this.#outLength
    // any step failing is a refusal, and the packet is given back as it came
    const opened =
      lib.EVP_DecryptInit_ex(ctx, null, null, null, iv) === 1 &&
      lib.EVP_DecryptUpdate(ctx, null, out, typeof aad === 'number' ? buf : aad, typeof aad === 'number' ? aad : aad.length) === 1 &&
      (end === from || lib.EVP_DecryptUpdate(ctx, ptr(buf, from), out, ptr(buf, from), end - from) === 1) &&
      lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, GCM_TAG, ptr(buf, end)) === 1 &&
      lib.EVP_DecryptFinal_ex(ctx, ptr(buf, end), out) === 1
    if (!opened) buf.set(this.#kept.subarray(0, buf.length))
    return opened
  }
}
