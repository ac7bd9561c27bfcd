// The console's frame: sign-in with an API key, the navigation and a hash router (#/calls/ca_1).
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, forgetWorkspace, session } from './api.mjs'
import { Field, html, Problem, useAction } from './ui.mjs'
import { KnowledgeBasesPage, KnowledgePage } from './pages/knowledge.mjs'
import { AgentPage, AgentsPage } from './pages/agents.mjs'
import { CallPage } from './pages/call.mjs'
import { CallsPage } from './pages/calls.mjs'
import { CampaignPage, CampaignsPage } from './pages/campaigns.mjs'
import { NumbersPage } from './pages/numbers.mjs'
import { OverviewPage } from './pages/overview.mjs'
import { SettingsPage } from './pages/settings.mjs'
import { WorkflowPage } from './pages/workflows.mjs'

const NAV = [
  ['#/', 'Overview'],
  ['#/agents', 'Agents'],
  ['#/knowledge', 'Knowledge'],
  ['#/numbers', 'Numbers'],
  ['#/calls', 'Calls'],
  ['#/campaigns', 'Campaigns'],
  ['#/settings', 'Settings'],
]

const ROUTES = [
  [/^\/agents\/([^/]+)\/workflow$/, (id) => html`<${WorkflowPage} id=${id} />`],
  [/^\/agents\/([^/]+)$/, (id) => html`<${AgentPage} id=${id} />`],
  [/^\/agents$/, () => html`<${AgentsPage} />`],
  [/^\/knowledge\/([^/]+)$/, (id) => html`<${KnowledgePage} id=${id} />`],
  [/^\/knowledge$/, () => html`<${KnowledgeBasesPage} />`],
  [/^\/numbers$/, () => html`<${NumbersPage} />`],
  [/^\/calls\/([^/]+)$/, (id) => html`<${CallPage} id=${id} />`],
  [/^\/calls$/, () => html`<${CallsPage} />`],
  [/^\/campaigns\/([^/]+)$/, (id) => html`<${CampaignPage} id=${id} />`],
  [/^\/campaigns$/, () => html`<${CampaignsPage} />`],
  [/^\/settings$/, () => html`<${SettingsPage} />`],
  [/^\/?$/, () => html`<${OverviewPage} />`],
]

function route(hash) {
  const path = decodeURIComponent(hash.replace(/^#/, '').split('?')[0] || '/')
  for (const [re, view] of ROUTES) {
    const m = re.exec(path)
    if (m) return view(...m.slice(1))
  }
  return html`<h1>Not found</h1><p>No console page at ${path}.</p>`
}

function SignIn({ onSignedIn }) {
  const [key, setKey] = useState('')
  const { error, busy, run } = useAction()
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      await api('GET', '/api/workspaces', undefined, key.trim())
      session.signIn(key.trim())
      onSignedIn()
    })
  }
  return html`<main class="signin">
    <h1>Voice agent console</h1>
    <form onSubmit=${submit}>
      <${Field} label="API key" name="apiKey" type="password" autocomplete="off" required value=${key}
        onInput=${(e) => setKey(e.target.value)} error=${error?.message} />
      <p class="hint">The key is kept in this tab's session storage only; <code>data/admin-api-key</code> holds the first one.</p>
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`
}

function Shell() {
  const [signedIn, setSignedIn] = useState(Boolean(session.key()))
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const onHash = () => setHash(location.hash)
    const onOut = () => setSignedIn(false)
    addEventListener('hashchange', onHash)
    addEventListener('signed-out', onOut)
    return () => {
      removeEventListener('hashchange', onHash)
      removeEventListener('signed-out', onOut)
    }
  }, [])
  if (!signedIn) return html`<${SignIn} onSignedIn=${() => setSignedIn(true)} />`
  const current = '#/' + (hash.replace(/^#\/?/, '').split('/')[0] ?? '')
  const signOut = () => {
    session.signOut()
    forgetWorkspace()
    setSignedIn(false)
  }
  return html`<div class="layout">
    <a class="skip" href="#content">Skip to content</a>
    <header>
      <nav aria-label="Console">
        <span class="brand">Voice agent</span>
        <ul>${NAV.map(([href, label]) => html`<li><a href=${href} aria-current=${current === href ? 'page' : undefined}>${label}</a></li>`)}</ul>
        <button class="link" onClick=${signOut}>Sign out</button>
      </nav>
    </header>
    <main id="content" tabindex="-1">${route(hash)}</main>
  </div>`
}


const root = document.getElementById('root')
root.textContent = ''
render(html`<${Shell} />`, root)
