// Pure: RFC 4180 CSV (quoted fields, doubled quotes, CRLF) into a header and rows, and the
// contacts a column mapping makes of them.
export function parseCsv(text) {
  const rows = []
  let row = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      row.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += ch
  }
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
  }
  const nonEmpty = rows.filter((r) => r.some((c) => c.trim() !== ''))
  return { header: (nonEmpty[0] ?? []).map((h) => h.trim()), rows: nonEmpty.slice(1) }
}

/** `mapping`: column index -> 'to', a variable name, or '' (left out). */
export function toContacts(rows, mapping) {
  return rows.map((r) => {
    const contact = { to: '', dynamicVariables: {} }
    mapping.forEach((target, i) => {
      const value = (r[i] ?? '').trim()
      if (target === 'to') contact.to = value
      else if (target) contact.dynamicVariables[target] = value
    })
    return contact
  })
}

/** The first guess: a column named like a phone number is `to`, every other keeps its name. */
export function guessMapping(header) {
  const phone = header.findIndex((h) => /^(to|phone|number|phone_?number|mobile|e164)$/i.test(h))
  return header.map((h, i) => (i === phone ? 'to' : h.replace(/[^A-Za-z0-9_]/g, '_')))
}
