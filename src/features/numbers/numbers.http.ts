import { Elysia, t } from 'elysia'
import type { Config } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams, NextCursor, Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import type { PublicBase } from '../../platform/net/index.ts'
import { secretBoxFor } from '../../platform/secrets/index.ts'
import { carrierVoiceRoute } from './carrier-voice.http.ts'
import { BuyNumberBody, CreatePhoneNumberBody, PhoneNumber, UpdatePhoneNumberBody } from './numbers.model.ts'
import * as service from './numbers.service.ts'


/** Whether an agent can hold a conversation (the app wires the agents module's readiness in). */
export type AgentReadinessLookup = (workspaceId: string, agentId: string) => Promise<{ canConverse: boolean; problems: string[] } | undefined>

export function numbersController(db: Db, config: Config, publicBase: PublicBase, auth: AuthPlugin, readinessOf: AgentReadinessLookup = async () => undefined) {
  const deps = (): service.NumbersDeps => ({ db, box: secretBoxFor(config.DATA_DIR), config, publicBase })
  const NumberOut = t.Object({
    ...PhoneNumber.properties,
    statusDetail: t.Union([t.String(), t.Null()], {
      description: 'what keeps calls on this number from working although it is set up, e.g. an inbound agent that cannot converse; null when nothing does',
    }),
    needsAttention: t.Boolean({
      description: 'true when statusDetail names a problem (e.g. the inbound agent\'s LLM is not configured or cannot be reached): the number is not really active, whatever status says',
    }),
  })
  const One = t.Object({ phoneNumber: NumberOut })
  const withDetail = async (n: PhoneNumber) => {
    const r = n.inboundAgentId ? await readinessOf(n.workspaceId, n.inboundAgentId) : undefined
    const statusDetail = r && !r.canConverse ? `the inbound agent cannot converse: ${r.problems.join('; ')}` : null
    return { ...n, statusDetail, needsAttention: statusDetail !== null }
  }
  const numbers = new Elysia({ prefix: '/api/phone-numbers', tags: ['Phone numbers'] })
    .use(auth)
    .post('', async ({ body, principal }) => ({ phoneNumber: await withDetail(await service.addNumber(deps(), principal.workspaceId, body)) }), {
      permission: 'numbers:manage',
      body: CreatePhoneNumberBody,
      response: One,
      detail: {
        summary: 'Connect a SIP number, or buy one through the carrier (provider carrier); needs a payment method (402)',
        description:
          'provider is detected when omitted (any SIP field or mediaEncryption means sip); sip needs sipTerminationUri; transport defaults to tls; ' +
          'mediaEncryption defaults to the MEDIA_ENCRYPTION setting, and required with transport udp or tcp is 422 on mediaEncryption. ' +
          'The trunk host may be public, private or loopback; link-local, cloud metadata, multicast, unspecified and reserved ' +
          'addresses and any maddr parameter are 422 on sipTerminationUri. ' +
          'inboundAgentId and outboundAgentId assign agents at once, checked as PATCH checks them (an agent of this workspace of the matching agentType, else 422 naming the field); ' +
          'a number starts as status active with an agent, unconfigured without. Errors: 422 validation_failed, 402 payment_method_required, 409 conflict (e164 already in the workspace), 409 number_in_use ' +
          '(e164 live in another workspace: a number takes inbound calls in one workspace at a time; releasing it frees the e164), ' +
          '422/502 carrier_error, 503 carrier_not_configured. sipPassword is stored encrypted and never returned.',
      },
    })
    .get('', async ({ query, principal }) => {
      const page = await service.listNumbers(db, principal.workspaceId, query)
      return { phoneNumbers: await Promise.all(page.phoneNumbers.map(withDetail)), nextCursor: page.nextCursor }
    }, {
      permission: 'numbers:read',
      query: PaginationQuery,
      response: t.Object({ phoneNumbers: t.Array(NumberOut), nextCursor: NextCursor }),
      detail: { summary: 'List phone numbers, newest first' },
    })
    .get('/:id', async ({ params, principal }) => ({ phoneNumber: await withDetail(await service.getNumber(db, principal.workspaceId, params.id)) }), {
      permission: 'numbers:read',
      params: IdParams,
      response: One,
      detail: { summary: 'Get a phone number' },
    })
    .patch('/:id', async ({ params, body, principal }) => ({ phoneNumber: await withDetail(await service.updateNumber(deps(), principal.workspaceId, params.id, body)) }), {
      permission: 'numbers:manage',
      params: IdParams,
      body: UpdatePhoneNumberBody,
      response: One,
      detail: {
        summary: 'Update label, agents (same workspace; null unassigns) or SIP settings',
        description: 'status follows: unconfigured <-> active as agents are assigned; error (trunk failure) clears when SIP settings change. ' +
          'sipTerminationUri follows the same address rules as on create (422 naming it). ' +
          'mediaEncryption required with sipOutboundTransport udp or tcp, whichever of the two the PATCH changes, is 422 on mediaEncryption; changing only mediaEncryption leaves an error status alone.',
      },
    })
    .delete(
      '/:id',
      async ({ params, principal }) => {
        await service.releaseNumber(deps(), principal.workspaceId, params.id)
        return { ok: true as const }
      },
      {
        permission: 'numbers:manage',
        params: IdParams,
        response: Ok,
        detail: {
        summary: 'Release a number (a bought number is released at the carrier too)',
        description: 'The number then leaves the API (status released) and its e164 may be added again. Carrier errors: 422/502 carrier_error.',
      },
      },
    )
  const buy = new Elysia({ prefix: '/api/workspaces/:workspace_id/carrier', tags: ['Carrier'] })
    .use(auth)
    .post('/buy-number', async ({ params, body }) => ({ phoneNumber: await withDetail(await service.buyNumber(deps(), params.workspace_id, body.phoneNumber, body.label)) }), {
      permission: 'numbers:manage',
      params: WorkspaceParams,
      body: BuyNumberBody,
      response: One,
      detail: {
        summary: 'Buy a number through the carrier and route its calls here; needs a payment method (402)',
        description:
          'Response {phoneNumber} with provider carrier, source purchased, status unconfigured. Errors: 402 payment_method_required, ' +
          '409 conflict, 409 number_in_use (e164 live in another workspace; nothing is bought), 422/502 carrier_error (details.carrierCode is the carrier\'s code), 503 carrier_not_configured.',
      },
    })
  return new Elysia()
    .use(numbers)
    .use(buy)
    .use(carrierVoiceRoute({ ...deps(), sipPort: config.SIP_PORT }))
}
