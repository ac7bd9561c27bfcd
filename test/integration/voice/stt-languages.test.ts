// Several sherpa-onnx models in STT_SHERPA_MODEL_DIR: each is loaded, and a call gets the one
// whose folder names its agent's language (real runtime, generated energy models).
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sherpaByLanguage } from '../../../src/realtime/voice/stt-languages.ts'
import { SherpaOnnxStt, sherpaModelFor } from '../../../src/realtime/voice/stt/index.ts'
import { writeEnergyTransducer } from '../../helpers/sherpa-models.ts'

const root = mkdtempSync(join(tmpdir(), 'stt-languages-'))
const loaded: SherpaOnnxStt[] = []
afterAll(() => {
  loaded.forEach((e) => e.close())
  rmSync(root, { recursive: true, force: true })
})

test('a model is picked by the primary language subtag named in its folder, else the first', () => {
  const models = [{ dir: '/m/sherpa-onnx-streaming-zipformer-en-2023-06-26' }, { dir: '/m/zipformer-bilingual-zh-en' }, { dir: '/m/vosk-model-de_small' }]
  expect(sherpaModelFor(models, 'de-DE')!.dir).toBe('/m/vosk-model-de_small')
  expect(sherpaModelFor(models, 'zh-CN')!.dir).toBe('/m/zipformer-bilingual-zh-en')
  expect(sherpaModelFor(models, 'en-GB')!.dir).toBe('/m/sherpa-onnx-streaming-zipformer-en-2023-06-26')
  expect(sherpaModelFor(models, 'fr-FR')!.dir).toBe('/m/sherpa-onnx-streaming-zipformer-en-2023-06-26')
  expect(sherpaModelFor([], 'fr-FR')).toBeUndefined()
})

test("with an English and a German model present, a German agent's calls get the German one", async () => {
  writeEnergyTransducer(join(root, 'energy-de'), { streaming: true })
  writeEnergyTransducer(join(root, 'energy-en'), { streaming: true })
  const first = await SherpaOnnxStt.load({ modelDir: join(root, 'energy-de'), endpointingMs: 400 })
  loaded.push(first)
  const notes: string[] = []
  const sttFor = await sherpaByLanguage(first, root, 400, notes)
  const en = sttFor('en-US') as SherpaOnnxStt
  loaded.push(en)
  expect(en.model.dir).toBe(join(root, 'energy-en'))
  expect(sttFor('de-AT')).toBe(first)
  expect(sttFor('es-ES')).toBe(first)
  expect(notes.join('\n')).toContain(join(root, 'energy-en'))
})
