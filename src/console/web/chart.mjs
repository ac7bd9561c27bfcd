// A uPlot line chart as a component, with a text summary for screen readers.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { html } from './ui.mjs'

/** `series`: [{label, stroke, values}] over the shared `x`; `time`: x holds unix seconds. */
export function LineChart({ title, x, series, xLabel, yLabel, time = false, summary }) {
  const box = useRef()
  useEffect(() => {
    if (!x.length) return
    const width = Math.min(720, box.current.clientWidth || 600)
    const plot = new uPlot({
      width, height: 220, title,
      scales: { x: { time } },
      axes: [{ label: xLabel }, { label: yLabel }],
      series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: true } }))],
    }, [x, ...series.map((s) => s.values)], box.current)
    return () => plot.destroy()
  }, [JSON.stringify([x, series])])
  return html`<figure class="chart" ref=${box} aria-label=${title}><figcaption class="sr-only">${summary}</figcaption></figure>`
}
