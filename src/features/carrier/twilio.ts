/** The Twilio REST calls the appliance makes (2010-04-01 API): form-encoded requests, JSON answers. */
export interface TwilioAvailableNumber {
  friendly_name: string
  phone_number: string
  locality: string | null
  region: string | null
  iso_country: string
  capabilities: Record<string, boolean>
}

export interface TwilioIncomingNumber {
  sid: string
  phone_number: string
  friendly_name: string
  voice_url: string | null
}

/** A Twilio error body (`{code, message, more_info, status}`) or a transport failure (status 0). */
export class CarrierError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
    readonly moreInfo?: string,
  ) {
    super(message)
  }
}

const TIMEOUT_MS = 15_000

export class TwilioClient {
  constructor(
    private readonly baseUrl: string,
    private readonly accountSid: string,
    private readonly authToken: string,
  ) {}

  private account(path: string): URL {
    return new URL(`/2010-04-01/Accounts/${encodeURIComponent(this.accountSid)}${path}`, this.baseUrl)
  }

  private async call<T>(method: string, url: URL, form?: Record<string, string>): Promise<T | undefined> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`,
      accept: 'application/json',
    }
    let body: string | undefined
    if (form) {
      body = new URLSearchParams(form).toString()
      headers['content-type'] = 'application/x-www-form-urlencoded'
    }
    let res: Response
    try {
      res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) })
    } catch (err) {
      throw new CarrierError(0, null, `cannot reach the carrier: ${(err as Error).message}`)
    }
    if (res.status === 204) return undefined
    const text = await res.text()
    let json: Record<string, unknown>
    try {
      json = JSON.parse(text)
    } catch {
      throw new CarrierError(res.status, null, `the carrier answered ${res.status} with a body that is not JSON`)
    }
    if (!res.ok) {
      const code = typeof json.code === 'number' ? json.code : null
      throw new CarrierError(res.status, code, String(json.message ?? `the carrier answered ${res.status}`), json.more_info as string | undefined)
    }
    return json as T
  }

  async searchLocal(country: string, opts: { areaCode?: string; limit?: number }): Promise<TwilioAvailableNumber[]> {
    const url = this.account(`/AvailablePhoneNumbers/${encodeURIComponent(country)}/Local.json`)
    if (opts.areaCode) url.searchParams.set('AreaCode', opts.areaCode)
    url.searchParams.set('VoiceEnabled', 'true')
    url.searchParams.set('PageSize', String(opts.limit ?? 20))
    const r = await this.call<{ available_phone_numbers?: TwilioAvailableNumber[] }>('GET', url)
    return r?.available_phone_numbers ?? []
  }

  async buyNumber(input: { phoneNumber: string; friendlyName?: string; voiceUrl?: string }): Promise<TwilioIncomingNumber> {
    const form: Record<string, string> = { PhoneNumber: input.phoneNumber }
    if (input.friendlyName) form.FriendlyName = input.friendlyName
    if (input.voiceUrl) {
      form.VoiceUrl = input.voiceUrl
      form.VoiceMethod = 'GET'
    }
    const r = await this.call<TwilioIncomingNumber>('POST', this.account('/IncomingPhoneNumbers.json'), form)
    if (!r?.sid) throw new CarrierError(502, null, 'the carrier bought the number but returned no sid')
    return r
  }

  async releaseNumber(sid: string): Promise<void> {
    await this.call('DELETE', this.account(`/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`))
  }
}
