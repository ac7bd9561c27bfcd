import { expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { parseObjectLocation, retryDelayMs, storageSettingsProblem, type StorageSettings } from '../../../src/features/recordings/index.ts'

const s3: StorageSettings = {
  RECORDINGS_STORAGE: 's3',
  S3_ENDPOINT: 'https://minio.example.net:9000',
  S3_BUCKET: 'call-recordings',
  S3_REGION: 'eu-west-1',
  S3_ACCESS_KEY_ID: 'AKIA',
  S3_SECRET_ACCESS_KEY: 'secret',
}

test.each([
  [{ RECORDINGS_STORAGE: 'local', S3_BUCKET: '' }, null],
  [{}, null],
  [{ RECORDINGS_STORAGE: 'nfs' }, 'RECORDINGS_STORAGE must be local or s3'],
  [{ S3_BUCKET: '' }, 'needs S3_BUCKET'],
  [{ S3_BUCKET: 'Bad_Bucket' }, 'not a valid bucket name'],
  [{ S3_SECRET_ACCESS_KEY: '' }, 'needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY'],
  [{ S3_ENDPOINT: 'ftp://host' }, 'S3_ENDPOINT must be an http(s) URL'],
  [{ S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT must be an http(s) URL'],
  [{ S3_ENDPOINT: '' }, null],
  [{ S3_REGION: 'eu west' }, 'not a region name'],
])('storage settings %p: %p', (patch, problem) => {
  const got = storageSettingsProblem({ ...s3, ...patch } as StorageSettings)
  if (problem === null) expect(got).toBeNull()
  else expect(got).toContain(problem)
})

test('loadConfig refuses RECORDINGS_STORAGE=s3 without a bucket, naming the key', () => {
  expect(() => loadConfig({}, { RECORDINGS_STORAGE: 's3', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' })).toThrow(ConfigError)
  expect(() => loadConfig({}, { RECORDINGS_STORAGE: 's3', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' })).toThrow(/S3_BUCKET/)
  expect(loadConfig({}, {}).RECORDINGS_STORAGE).toBe('local')
})

test('an object location names its bucket and key; a file path is no object location', () => {
  expect(parseObjectLocation('s3://recs/recordings/call_1.wav')).toEqual({ bucket: 'recs', key: 'recordings/call_1.wav' })
  expect(parseObjectLocation('/var/lib/voice-agent/recordings/call_1.wav')).toBeNull()
  expect(parseObjectLocation('s3://no-key')).toBeNull()
})

test('upload retries back off by doubling from the first delay up to the cap', () => {
  const b = { firstMs: 1000, maxMs: 60_000 }
  expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n, b))).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000])
})
