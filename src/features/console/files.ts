// Every file the console serves, embedded in the executable by `with { type: 'file' }` (Bun gives
// a path that opens in the checkout and inside `dist/voice-agent` alike). The name is the path
// under /console/assets/<version>/; vendor modules are named by the import map in index.html.
import uplotCss from '../../../node_modules/uplot/dist/uPlot.min.css' with { type: 'file' }
import htm from '../../../node_modules/htm/dist/htm.module.js' with { type: 'file' }
import preactHooks from '../../../node_modules/preact/hooks/dist/hooks.mjs' with { type: 'file' }
import preact from '../../../node_modules/preact/dist/preact.mjs' with { type: 'file' }
import uplot from '../../../node_modules/uplot/dist/uPlot.esm.js' with { type: 'file' }
import wavesurfer from '../../../node_modules/wavesurfer.js/dist/wavesurfer.esm.js' with { type: 'file' }
import api from './web/api.mjs' with { type: 'file' }
import app from './web/app.mjs' with { type: 'file' }
import chart from './web/chart.mjs' with { type: 'file' }
import css from './web/console.css' with { type: 'file' }
import favicon from './web/favicon.svg' with { type: 'file' }
import graphLayout from './web/graph-layout.mjs' with { type: 'file' }
import index from './web/shell.html.tmpl' with { type: 'file' }
import agentFields from './web/pages/agent-fields.mjs' with { type: 'file' }
import agents from './web/pages/agents.mjs' with { type: 'file' }
import browserCall from './web/pages/browser-call.mjs' with { type: 'file' }
import call from './web/pages/call.mjs' with { type: 'file' }
import calls from './web/pages/calls.mjs' with { type: 'file' }
import campaigns from './web/pages/campaigns.mjs' with { type: 'file' }
import knowledge from './web/pages/knowledge.mjs' with { type: 'file' }
import numbers from './web/pages/numbers.mjs' with { type: 'file' }
import overview from './web/pages/overview.mjs' with { type: 'file' }
import settings from './web/pages/settings.mjs' with { type: 'file' }
import workflowEditor from './web/pages/workflow-editor.mjs' with { type: 'file' }
import workflows from './web/pages/workflows.mjs' with { type: 'file' }
import ui from './web/ui.mjs' with { type: 'file' }
import webCall from './web/web-call.mjs' with { type: 'file' }

/** The page shell; the server fills in the asset version and the import map. */
export const INDEX_HTML = index

/** Served under /console/assets/<version>/<name>. */
export const ASSET_FILES: Record<string, string> = {
  'app.mjs': app,
  'api.mjs': api,
  'ui.mjs': ui,
  'web-call.mjs': webCall,
  'chart.mjs': chart,
  'console.css': css,
  'graph-layout.mjs': graphLayout,
  'favicon.svg': favicon,
  'pages/overview.mjs': overview,
  'pages/agents.mjs': agents,
  'pages/agent-fields.mjs': agentFields,
  'pages/browser-call.mjs': browserCall,
  'pages/knowledge.mjs': knowledge,
  'pages/numbers.mjs': numbers,
  'pages/calls.mjs': calls,
  'pages/call.mjs': call,
  'pages/workflows.mjs': workflows,
  'pages/workflow-editor.mjs': workflowEditor,
  'pages/campaigns.mjs': campaigns,
  'pages/settings.mjs': settings,
  'vendor/preact.mjs': preact,
  'vendor/preact-hooks.mjs': preactHooks,
  'vendor/htm.mjs': htm,
  'vendor/uplot.mjs': uplot,
  'vendor/uplot.css': uplotCss,
  'vendor/wavesurfer.mjs': wavesurfer,
}

/** Bare specifiers the browser resolves through the import map. */
export const IMPORTS: Record<string, string> = {
  preact: 'vendor/preact.mjs',
  'preact/hooks': 'vendor/preact-hooks.mjs',
  htm: 'vendor/htm.mjs',
  uplot: 'vendor/uplot.mjs',
  'wavesurfer.js': 'vendor/wavesurfer.mjs',
}
