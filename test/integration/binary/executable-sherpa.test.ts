// sherpa-onnx's native addon cannot be embedded (it links its own onnxruntime by path): the build
// puts it in sherpa-onnx/ beside the executable, and the executable finds it there from any folder.
// The operator's model sits in STT_SHERPA_MODEL_DIR; here a tiny energy model in sherpa's format.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runExecutable, type RunningExecutable } from '../../helpers/executable.ts'
import { writeEnergyTransducer } from '../../helpers/sherpa-models.ts'
import { onnxModel } from '../../helpers/tiny-onnx.ts'

let exe: RunningExecutable
const models = mkdtempSync(join(tmpdir(), 'sherpa-models-'))

beforeAll(async () => {
  writeEnergyTransducer(join(models, 'energy'), { streaming: true })
  exe = await runExecutable({ STT_PROVIDER: 'sherpa-onnx', STT_SHERPA_MODEL_DIR: models })
}, 60_000)

afterAll(async () => {
  await exe?.stop()
  rmSync(models, { recursive: true, force: true })
})

test('the executable loads sherpa-onnx from beside itself and the operator model from STT_SHERPA_MODEL_DIR', async () => {
  const engines = exe.logs.find((l) => l.msg === 'voice engines ready')?.engines as string[]
  expect(engines.find((e) => e.startsWith('STT:'))).toBe(`STT: sherpa-onnx, streaming transducer (lstm) from ${join(models, 'energy')}`)
  const ready = await exe.api('GET', '/ready', { key: null })
  expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } })
})

test('a malformed model in STT_SHERPA_MODEL_DIR is refused at start with the reason, through the executable itself as the probe', async () => {
  const bad = mkdtempSync(join(tmpdir(), 'sherpa-bad-'))
  const dir = writeEnergyTransducer(join(bad, 'broken'), { streaming: true })
  const io = { name: 'x', type: 'float' as const, dims: [1] }
  // lstm metadata without num_encoder_layers: sherpa-onnx calls exit(-1) on this, in the probe child
  writeFileSync(join(dir, 'encoder-energy-chunk-16.onnx'), onnxModel({ inputs: [io], outputs: [{ ...io, name: 'y' }], nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }], metadata: { model_type: 'lstm', T: 16 } }))
  try {
    const err = await runExecutable({ STT_PROVIDER: 'sherpa-onnx', STT_SHERPA_MODEL_DIR: bad }).then(
      async (e) => {
        await e.stop()
        return undefined
      },
      (e: Error) => e.message,
    )
    expect(err).toContain('configuration error: STT_PROVIDER=sherpa-onnx')
    expect(err).toContain(`could not load the streaming transducer (lstm) model in ${dir}`)
    expect(err).toContain("'num_encoder_layers' does not exist in the metadata")
  } finally {
    rmSync(bad, { recursive: true, force: true })
  }
}, 30_000)
