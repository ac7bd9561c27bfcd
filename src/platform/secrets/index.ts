export { loadOrCreateSecretKey, SECRET_KEY_FILE, SecretBox, secretBoxFor } from './secret-box.ts'
