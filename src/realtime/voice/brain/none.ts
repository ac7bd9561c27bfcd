import type { Brain } from '../session/types.ts'

/** No LLM and no workflow: greet, explain, hang up, so a misconfigured number is never silent. */
export function noBrain(welcome: string, message: string): Brain {
  return {
    kind: 'none',
    busy: false,
    answersKeys: false,
    start(host) {
      void (async () => {
        if (welcome.trim()) await host.say(welcome)
        // not provider_error: nothing failed, nothing was configured to converse with
        await host.end('not_configured', message)
      })()
    },
    onUserTurn() {},
    onDtmf() {},
    stop() {},
  }
}
