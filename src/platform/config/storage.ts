/** The configuration keys of recordings storage, checked when the configuration loads. */
export interface StorageSettings {
  RECORDINGS_STORAGE: string
  S3_ENDPOINT: string
  S3_BUCKET: string
  S3_REGION: string
  S3_ACCESS_KEY_ID: string
  S3_SECRET_ACCESS_KEY: string
}

/** What is wrong with the recordings storage settings, or null. Pure. */
export function storageSettingsProblem(s: StorageSettings): string | null {
  if (s.RECORDINGS_STORAGE !== 'local' && s.RECORDINGS_STORAGE !== 's3') return `RECORDINGS_STORAGE must be local or s3, got ${s.RECORDINGS_STORAGE}`
  if (s.RECORDINGS_STORAGE === 'local') return null
  if (!s.S3_BUCKET) return 'RECORDINGS_STORAGE=s3 needs S3_BUCKET'
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s.S3_BUCKET)) return `S3_BUCKET is not a valid bucket name: ${s.S3_BUCKET}`
  if (!s.S3_ACCESS_KEY_ID || !s.S3_SECRET_ACCESS_KEY) return 'RECORDINGS_STORAGE=s3 needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY'
  if (s.S3_ENDPOINT) {
    let url: URL
    try {
      url = new URL(s.S3_ENDPOINT)
    } catch {
      return `S3_ENDPOINT must be an http(s) URL, got ${s.S3_ENDPOINT}`
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `S3_ENDPOINT must be an http(s) URL, got ${s.S3_ENDPOINT}`
  }
  if (!/^[a-z0-9-]+$/.test(s.S3_REGION)) return `S3_REGION is not a region name: ${s.S3_REGION}`
  return null
}
