/**
 * A local stand-in for S3-compatible object storage, speaking the S3 REST protocol on
 * path-style URLs (/<bucket>/<key>): PUT, GET (with Range), HEAD and DELETE of objects, the
 * multipart upload calls large objects go through, ListObjectsV2 (prefix, max-keys, pages), S3's XML error bodies (NoSuchKey,
 * NoSuchBucket, InvalidAccessKeyId) and a SigV4 Authorization header whose credential must
 * name the configured access key. Bun's own S3Client is the client the tests run.
 */
import type { Server } from 'bun'

export interface FakeS3 {
  url: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** key -> bytes of the stored objects of the bucket. */
  objects: Map<string, Uint8Array>
  /** key -> when the object was last written (LastModified in listings); a test may set an older time. */
  modified: Map<string, Date>
  /** "METHOD /bucket/key?query" of every request, in order. */
  requests: string[]
  /** The appliance settings that store recordings in this bucket. */
  settings(): { RECORDINGS_STORAGE: 's3'; S3_ENDPOINT: string; S3_BUCKET: string; S3_REGION: string; S3_ACCESS_KEY_ID: string; S3_SECRET_ACCESS_KEY: string }
  /** Makes the next `n` requests answer 500 InternalError (an outage). */
  failNext(n: number): void
  stop(): Promise<void>
}

const xmlError = (status: number, code: string, message: string, resource: string) =>
  new Response(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>fake</RequestId></Error>`,
    { status, headers: { 'content-type': 'application/xml' } },
  )

const etagOf = (bytes: Uint8Array) => `"${new Bun.CryptoHasher('md5').update(bytes).digest('hex')}"`

/** Parses `bytes=a-b`, `bytes=a-` and `bytes=-n` against `size`; null when unsatisfiable. */
function byteRange(header: string, size: number): { start: number; end: number } | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (!m[1] && !m[2])) return null
  let start: number
  let end: number
  if (!m[1]) {
    start = Math.max(0, size - Number(m[2]))
    end = size - 1
  } else {
    start = Number(m[1])
    end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1
  }
  return start < size && start <= end ? { start, end } : null
}

export function startFakeS3(opts: { bucket?: string; region?: string; accessKeyId?: string; secretAccessKey?: string } = {}): FakeS3 {
  const bucket = opts.bucket ?? 'recordings'
  const region = opts.region ?? 'us-east-1'
  const accessKeyId = opts.accessKeyId ?? 'AKIAFAKETEST'
  const secretAccessKey = opts.secretAccessKey ?? 'fake-secret-access-key'
  const objects = new Map<string, Uint8Array>()
  const modified = new Map<string, Date>()
  const store = (key: string, bytes: Uint8Array) => {
    objects.set(key, bytes)
    modified.set(key, new Date())
  }
  const uploads = new Map<string, { key: string; parts: Map<number, Uint8Array> }>()
  const requests: string[] = []
  let failures = 0
  let nextUpload = 1

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      requests.push(`${req.method} ${url.pathname}${url.search}`)
      const resource = decodeURIComponent(url.pathname)
      if (failures > 0) {
        failures--
        return xmlError(500, 'InternalError', 'We encountered an internal error. Please try again.', resource)
      }
      const auth = req.headers.get('authorization') ?? ''
      const cred = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=[^,]+, ?Signature=[0-9a-f]{64}$/.exec(auth)
      if (!cred) return xmlError(403, 'AccessDenied', 'Access Denied: a SigV4 Authorization header is required', resource)
      if (cred[1] !== accessKeyId) return xmlError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', resource)
      const [, b, ...rest] = url.pathname.split('/')
      const key = rest.map(decodeURIComponent).join('/')
      if (b !== bucket) return xmlError(404, 'NoSuchBucket', 'The specified bucket does not exist', resource)
      const q = url.searchParams
      if (!key && req.method === 'GET' && q.get('list-type') === '2') return listObjects(q)
      if (!key) return xmlError(400, 'InvalidRequest', 'an object key is required', resource)

      if (req.method === 'POST' && q.has('uploads')) {
        const id = `upload-${nextUpload++}`
        uploads.set(id, { key, parts: new Map() })
        return new Response(
          `<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
          { headers: { 'content-type': 'application/xml' } },
        )
      }
      const uploadId = q.get('uploadId')
      if (uploadId !== null) {
        const upload = uploads.get(uploadId)
        if (!upload || upload.key !== key) return xmlError(404, 'NoSuchUpload', 'The specified upload does not exist.', resource)
        if (req.method === 'PUT') {
          const bytes = new Uint8Array(await req.arrayBuffer())
          upload.parts.set(Number(q.get('partNumber')), bytes)
          return new Response(null, { headers: { etag: etagOf(bytes) } })
        }
        if (req.method === 'DELETE') {
          uploads.delete(uploadId)
          return new Response(null, { status: 204 })
        }
        if (req.method === 'POST') {
          const numbers = [...upload.parts.keys()].sort((x, y) => x - y)
          const whole = Buffer.concat(numbers.map((n) => upload.parts.get(n)!))
          store(key, new Uint8Array(whole))
          uploads.delete(uploadId)
          return new Response(
            `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>${etagOf(whole)}</ETag></CompleteMultipartUploadResult>`,
            { headers: { 'content-type': 'application/xml' } },
          )
        }
      }

      if (req.method === 'PUT') {
        const bytes = new Uint8Array(await req.arrayBuffer())
        store(key, bytes)
        return new Response(null, { headers: { etag: etagOf(bytes) } })
      }
      if (req.method === 'DELETE') {
        objects.delete(key) // S3 answers 204 whether or not the key existed
        modified.delete(key)
        return new Response(null, { status: 204 })
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        const obj = objects.get(key)
        if (!obj) return req.method === 'HEAD' ? new Response(null, { status: 404 }) : xmlError(404, 'NoSuchKey', 'The specified key does not exist.', resource)
        const common = { etag: etagOf(obj), 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' }
        const range = req.headers.get('range')
        if (!range) return new Response(req.method === 'HEAD' ? null : obj, { headers: { ...common, 'content-length': String(obj.length) } })
        const r = byteRange(range, obj.length)
        if (!r) return xmlError(416, 'InvalidRange', 'The requested range is not satisfiable', resource)
        return new Response(req.method === 'HEAD' ? null : obj.subarray(r.start, r.end + 1), {
          status: 206,
          headers: { ...common, 'content-range': `bytes ${r.start}-${r.end}/${obj.length}`, 'content-length': String(r.end - r.start + 1) },
        })
      }
      return xmlError(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', resource)
    },
  })

  /** ListObjectsV2: keys in order after the continuation token (the last key of the page before). */
  function listObjects(q: URLSearchParams): Response {
    const prefix = q.get('prefix') ?? ''
    const max = Math.min(1000, Number(q.get('max-keys') ?? 1000))
    const after = q.get('continuation-token') ?? q.get('start-after') ?? ''
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort()
    const page = keys.slice(0, max)
    const truncated = keys.length > page.length
    const contents = page
      .map((k) => `<Contents><Key>${k}</Key><LastModified>${modified.get(k)!.toISOString()}</LastModified><ETag>${etagOf(objects.get(k)!)}</ETag><Size>${objects.get(k)!.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`)
      .join('')
    const next = truncated ? `<NextContinuationToken>${page[page.length - 1]}</NextContinuationToken>` : ''
    return new Response(
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${contents}</ListBucketResult>`,
      { headers: { 'content-type': 'application/xml' } },
    )
  }

  const url = `http://127.0.0.1:${server.port}`
  return {
    url,
    settings: () => ({ RECORDINGS_STORAGE: 's3', S3_ENDPOINT: url, S3_BUCKET: bucket, S3_REGION: region, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey }),
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    objects,
    modified,
    requests,
    failNext: (n) => {
      failures = n
    },
    stop: async () => {
      server.stop(true)
    },
  }
}
