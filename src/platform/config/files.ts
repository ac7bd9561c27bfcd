// The checks of the configuration that read the file system, run by loadConfig after the pure
// ones: the SIP TLS files must hold what TLS needs (a bad one failed when SIP started, after the
// database and the admin key had been created), and DATA_DIR must be a folder or creatable.
// Each problem names its key; nothing is created.
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { createSecureContext } from 'node:tls'

export interface FileSettings {
  SIP_TLS_CERT_FILE: string
  SIP_TLS_KEY_FILE: string
  SIP_TLS_CA_FILE: string
  /** Absolute (loadConfig resolves it first). */
  DATA_DIR: string
}

/** The first problem of the files the configuration names, or undefined. */
export function configFilesProblem(cfg: FileSettings): string | undefined {
  return tlsFilesProblem(cfg) ?? dataDirProblem(cfg.DATA_DIR)
}

function tlsFilesProblem(cfg: FileSettings): string | undefined {
  const read = (key: string, file: string): { text?: string; problem?: string } => {
    try {
      return { text: readFileSync(file, 'utf8') }
    } catch (err) {
      return { problem: `${key}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` }
    }
  }
  if (cfg.SIP_TLS_CERT_FILE && cfg.SIP_TLS_KEY_FILE) {
    const cert = read('SIP_TLS_CERT_FILE', cfg.SIP_TLS_CERT_FILE)
    if (cert.problem) return cert.problem
    const key = read('SIP_TLS_KEY_FILE', cfg.SIP_TLS_KEY_FILE)
    if (key.problem) return key.problem
    if (!parses(() => new X509Certificate(cert.text!))) return `SIP_TLS_CERT_FILE: ${cfg.SIP_TLS_CERT_FILE} holds no PEM certificate`
    if (!parses(() => createPrivateKey(key.text!))) return `SIP_TLS_KEY_FILE: ${cfg.SIP_TLS_KEY_FILE} holds no PEM private key`
    try {
      createSecureContext({ cert: cert.text, key: key.text })
    } catch (err) {
      const mismatch = (err as NodeJS.ErrnoException).code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH'
      return `SIP_TLS_KEY_FILE: ${mismatch ? `the key in ${cfg.SIP_TLS_KEY_FILE} is not the key of the certificate in SIP_TLS_CERT_FILE ${cfg.SIP_TLS_CERT_FILE}` : (err as Error).message}`
    }
  }
  if (cfg.SIP_TLS_CA_FILE) {
    const ca = read('SIP_TLS_CA_FILE', cfg.SIP_TLS_CA_FILE)
    if (ca.problem) return ca.problem
    if (!parses(() => createSecureContext({ ca: ca.text }))) return `SIP_TLS_CA_FILE: ${cfg.SIP_TLS_CA_FILE} holds no PEM CA certificate`
  }
  return undefined
}

/** DATA_DIR is a folder, or the nearest folder above it that exists may be written to (the start creates it). */
function dataDirProblem(dataDir: string): string | undefined {
  for (let path = dataDir; ; path = dirname(path)) {
    let st
    try {
      st = statSync(path, { throwIfNoEntry: false })
    } catch (err) {
      // ENOTDIR: a file on the way, which the step above finds
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') return `DATA_DIR: cannot look at ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    }
    if (st && !st.isDirectory()) return `DATA_DIR: ${path} is not a folder`
    if (st && path === dataDir) return undefined
    if (st) {
      try {
        accessSync(path, constants.W_OK | constants.X_OK)
        return undefined
      } catch {
        return `DATA_DIR: ${dataDir} does not exist and cannot be created: ${path} is not writable by this user`
      }
    }
    if (dirname(path) === path) return undefined
  }
}

function parses(read: () => unknown): boolean {
  try {
    read()
    return true
  } catch {
    return false
  }
}
