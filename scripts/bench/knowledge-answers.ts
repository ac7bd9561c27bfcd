// What a caller gets from the knowledge-domains evaluation sets (test/fixtures/knowledge-domains):
// per domain top-1 and top-3, the right fact heard (clean questions and those with recognition
// errors apart), a wrong answer spoken and the unanswerable refused at the knowledge feature's
// threshold, and the confidence's AUC of right against wrong; tuning and held-out domains apart;
// on SQLite and, when it is installed, PostgreSQL in the same run.
//   bun run scripts/bench/knowledge-answers.ts [--sqlite-only] [--split tuning|heldout] [--dump file.json]
import { writeFileSync } from 'node:fs'
import { startTestAppliance } from '../../test/helpers/appliance.ts'
import { postgresInstalled, startPostgres } from '../../test/helpers/postgres.ts'
import { type DomainFigures, domains, evaluateDomain, summarise, summaryLine } from '../../test/helpers/knowledge-domains.ts'

const flag = (name: string) => process.argv.includes(`--${name}`)
const value = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : undefined
}

async function run(label: string, env: Record<string, string> = {}): Promise<DomainFigures[]> {
  const t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0, ...env })
  try {
    const split = value('split')
    const out: DomainFigures[] = []
    for (const d of domains().filter((x) => !split || x.split === split)) out.push(await evaluateDomain(t.appliance.database.db, t.workspaceId, d))
    console.log(`\n${label}`)
    for (const s of ['tuning', 'heldout']) {
      const group = out.filter((f) => f.split === s)
      if (!group.length) continue
      for (const f of group) console.log(`  ${summaryLine(`${f.domain}`, summarise(f.outcomes))}`)
      console.log(`  ${summaryLine(`${s} (all)`, summarise(group.flatMap((f) => f.outcomes)))}`)
    }
    return out
  } finally {
    await t.stop()
  }
}

const sqlite = await run('SQLite')
const dump = value('dump')
if (dump) writeFileSync(dump, JSON.stringify(sqlite.flatMap((f) => f.outcomes.map((o) => ({ domain: f.domain, split: f.split, ...o })))))
if (!flag('sqlite-only') && postgresInstalled()) {
  const pg = await startPostgres()
  try {
    await run('PostgreSQL', { DATABASE_URL: await pg.createDatabase('answers') })
  } finally {
    pg.stop()
  }
}
