// An upload's text, checked before anything is stored: one of content or contentBase64, UTF-8,
// without control characters, within the size limit, and not a page that runs script. Pure.
import { AppError, invalidField, validation } from '../../platform/errors.ts'

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/
// C0 and C1 controls and DEL, but tab, LF, CR and form feed (a page break in plain text)
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u0008\u000b\u000e-\u001f\u007f-\u009f]/

export interface UploadText {
  content?: string
  contentBase64?: string
}

const tooLarge = (limit: number, bytes: number) =>
  new AppError(413, 'payload_too_large', `the document holds ${bytes} bytes of text; at most ${limit} are accepted (KNOWLEDGE_MAX_DOCUMENT_BYTES)`, { limitBytes: limit })

/** The document's text and its UTF-8 size, or a 4xx naming what is wrong. */
export function uploadedText(body: UploadText, maxBytes: number): { text: string; bytes: number } {
  if ((body.content === undefined) === (body.contentBase64 === undefined)) {
    throw validation([{ path: 'content', message: 'give the text as content, or the file as contentBase64 (one of them)' }])
  }
  let text: string
  if (body.contentBase64 !== undefined) {
    // base64 of more than the limit is refused before it is decoded
    if (Math.floor((body.contentBase64.length * 3) / 4) > maxBytes + 8) throw tooLarge(maxBytes, Math.floor((body.contentBase64.length * 3) / 4))
    if (!BASE64.test(body.contentBase64)) throw invalidField('contentBase64', 'is not base64')
    const bytes = Buffer.from(body.contentBase64, 'base64')
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      throw invalidField('contentBase64', 'is UTF-16 text; save the file as UTF-8 and upload it again')
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw invalidField('contentBase64', 'is not UTF-8 text (a binary file, or text in another encoding such as Latin-1: save it as UTF-8)')
    }
  } else text = body.content!
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > maxBytes) throw tooLarge(maxBytes, bytes)
  const path = body.content !== undefined ? 'content' : 'contentBase64'
  if (!text.trim()) throw invalidField(path, 'is empty')
  if (text.includes('\u0000')) throw invalidField(path, 'looks binary (it holds NUL); upload text, Markdown, HTML or a CSV of questions and answers')
  const control = CONTROL.exec(text)
  if (control) {
    const line = text.slice(0, control.index).split('\n').length
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')
    throw invalidField(path, `holds the control character U+${code} on line ${line} (an escape sequence, or a binary file); only tab, line breaks and form feed are accepted`)
  }
  if (text.includes('\ufffd')) throw invalidField(path, 'holds U+FFFD replacement characters: the file was not UTF-8 when it was read (save it as UTF-8, or send its bytes as contentBase64)')
  return { text, bytes }
}
