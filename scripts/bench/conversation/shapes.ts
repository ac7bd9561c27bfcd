// The two shapes a run measures: what the appliance is configured with, and the agent (with its
// workflow and phone number) each gets through the HTTP API.
import { setupCallTarget } from '../../../test/helpers/calls.ts'
import type { BenchAppliance } from './appliance.ts'
import { WELCOME, workflowGraph } from './script.ts'

export type ShapeName = 'offline' | 'cloud'
export const SHAPES: ShapeName[] = ['offline', 'cloud']

export interface CloudUrls {
  deepgram: string
  llm: string
  llmKey: string
  tts: string
}

export function shapeEnv(shape: ShapeName, cloud?: CloudUrls): Record<string, string> {
  if (shape === 'offline') return { VAD_ENGINE: 'silero', STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', TTS_PROVIDER: 'flite' }
  if (!cloud) throw new Error('the cloud shape needs its fakes')
  return {
    VAD_ENGINE: 'silero',
    STT_PROVIDER: 'deepgram',
    DEEPGRAM_BASE_URL: cloud.deepgram,
    DEEPGRAM_API_KEY: 'bench',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: cloud.llm,
    LLM_API_KEY: cloud.llmKey,
    TTS_PROVIDER: 'elevenlabs',
    ELEVENLABS_BASE_URL: cloud.tts,
    ELEVENLABS_API_KEY: 'bench',
  }
}

/** Creates the shape's agent and number; returns the number to call (as the SIP user) and the agent (web calls name it). */
export async function setupShape(shape: ShapeName, a: BenchAppliance): Promise<{ user: string; agentId: string }> {
  for (let i = 0; (await a.api('GET', '/ready', { key: null })).body?.status !== 'ready'; i++) {
    if (i > 600) throw new Error('the appliance did not become ready in 60 s')
    await Bun.sleep(100) // polling another process's readiness
  }
  const agent =
    shape === 'offline'
      ? {}
      : { promptPublished: 'You are the receptionist of Riverside Dental.', welcome: { mode: 'agent_speaks_first', message: WELCOME, interruptible: true } }
  const target = await setupCallTarget({ api: a.api, workspaceId: a.workspaceId } as never, { agent })
  if (shape === 'offline') {
    const put = await a.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: workflowGraph() })
    if (put.status !== 200) throw new Error(`workflow: ${JSON.stringify(put.body)}`)
  }
  return { user: target.e164.slice(1), agentId: target.agentId }
}
