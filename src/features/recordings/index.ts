export { RecordingStorage, recordingStorageFor, isObjectLocation, parseObjectLocation, objectKeyOf, type StoredRecording } from './storage.ts'
export { RecordingUploader, retryDelayMs, type UploadBackoff, type UploadedCalls } from './uploader.ts'
export { storageSettingsProblem, type StorageSettings } from '../../platform/config/storage.ts'
export { callIdOf, orphanRecordings, type OrphanScan } from './orphans.ts'
