// Rewrites docs/configuration.md's table from src/platform/config/index.ts (run after adding a key):
//   bun run scripts/config-table.ts
import { join } from 'node:path'
import { CONFIG_KEYS } from '../src/platform/config/index.ts'

const file = join(import.meta.dir, '..', 'docs', 'configuration.md')
const readme = await Bun.file(file).text()
const start = '<!-- config:start -->'
const end = '<!-- config:end -->'
const rows = Object.entries(CONFIG_KEYS).map(
  ([key, spec]) => `| \`${key}\` | \`${spec.default === '' ? '(empty)' : String(spec.default)}\` | ${spec.doc} |`,
)
const table = ['| key | default | meaning |', '|---|---|---|', ...rows].join('\n')
const from = readme.indexOf(start)
const to = readme.indexOf(end)
if (from < 0 || to < from) throw new Error('docs/configuration.md has no config markers')
await Bun.write(file, `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`)
console.log(`wrote ${rows.length} configuration keys`)
