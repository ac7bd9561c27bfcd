// The public API as the console uses it: the key lives in sessionStorage only, every error body
// becomes an ApiError carrying its field issues so forms can show them beside the field.
const KEY = 'voice-agent-api-key'

export const session = {
  key: () => sessionStorage.getItem(KEY),
  signIn: (key) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`)
    this.status = status
    this.code = body?.error?.code
    this.fields = {}
    this.issues = body?.error?.details?.fields ?? []
    for (const f of body?.error?.details?.fields ?? []) this.fields[f.path] = f.message
  }
}

/** The response itself (for audio); a failure throws like `api`. */
export async function apiResponse(method, path, body, key = session.key()) {
  const headers = { authorization: `Bearer ${key}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!res.ok) await failed(res, key)
  return res
}

async function failed(res, key) {
  const text = await res.text()
  let parsed
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {}
  if (res.status === 401 && key === session.key()) {
    session.signOut()
    location.hash = '#/'
    dispatchEvent(new Event('signed-out'))
  }
  throw new ApiError(res.status, parsed)
}

export async function api(method, path, body, key = session.key()) {
  const text = await (await apiResponse(method, path, body, key)).text()
  return text ? JSON.parse(text) : undefined
}

/** POSTs a file as it is (a CSV), with its own Content-Type; answers the JSON like `api`. */
export async function postFile(path, file, contentType, key = session.key()) {
  const res = await fetch(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, body: file })
  if (!res.ok) await failed(res, key)
  return res.json()
}

export const get = (path) => api('GET', path)
export const post = (path, body = {}) => api('POST', path, body)
export const put = (path, body) => api('PUT', path, body)
export const patch = (path, body) => api('PATCH', path, body)
export const del = (path) => api('DELETE', path)

let workspace
/** The key's workspace (a key belongs to one). */
export async function workspaceId() {
  workspace ??= get('/api/workspaces').then((r) => r.workspaces[0].id)
  return workspace
}
export function forgetWorkspace() {
  workspace = undefined
}

/** Query string from an object, leaving out empty values. */
export function qs(params) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}
