// The thread of call-worker-load.ts: runs a call worker's entry file and, when the worker says
// it is listening (its modules have loaded), reports the modules this thread has loaded.
import { parentPort, workerData } from 'node:worker_threads'

const port = parentPort!
const post = port.postMessage.bind(port)
port.postMessage = (m: { t?: string }) => {
  if (m?.t === 'listening') post({ t: 'loaded', modules: Object.keys(require.cache) })
  else post(m)
}
await import((workerData as { entry: string }).entry)
