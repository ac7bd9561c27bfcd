// The one way this process reads its configuration, for check-config, every other command and
// serve: every key and the files they name (loadConfig), then the voice keys (the voice
// registry's). A problem is a ConfigError naming its key, found before anything is created.
import { type Config, loadConfig } from '../../platform/config/index.ts'
import { checkVoiceConfig } from '../../realtime/voice/index.ts'

export async function loadCheckedConfig(env: Record<string, string | undefined> = process.env): Promise<Config> {
  const cfg = loadConfig(env)
  await checkVoiceConfig(cfg)
  return cfg
}
