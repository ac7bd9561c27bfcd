// A uPlot line chart as a component, with a text summary for screen readers.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { html } from './ui.mjs'

const HOUR = 3600

/**
 * Pure: the x range of a time chart, in unix seconds. uPlot pads a single value by its order of
 * magnitude (one call today drew an axis from 2027 to 2029), so: one point gets an hour around
 * it, points closer than an hour are widened to one hour, a longer span gets 5% either side, and
 * no points give the day that starts at `dayStart`.
 */
export function timeAxisRange(min, max, dayStart) {
  if (min == null || max == null || !Number.isFinite(min) || !Number.isFinite(max)) return [dayStart, dayStart + 24 * HOUR]
  const span = max - min
  if (span < HOUR) {
    const mid = (min + max) / 2
    return [mid - HOUR / 2, mid + HOUR / 2]
  }
  return [min - span * 0.05, max + span * 0.05]
}

/** `series`: [{label, stroke, values}] over the shared `x`; `time`: x holds unix seconds. */
export function LineChart({ title, x, series, xLabel, yLabel, time = false, summary }) {
  const box = useRef()
  useEffect(() => {
    if (!x.length) return
    const width = Math.min(720, box.current.clientWidth || 600)
    const plot = new uPlot({
      width, height: 220, title,
      scales: { x: time ? { time, range: (_u, min, max) => timeAxisRange(min, max, x[0] - (x[0] % 86400)) } : { time } },
      axes: [{ label: xLabel }, { label: yLabel }],
      series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: true } }))],
    }, [x, ...series.map((s) => s.values)], box.current)
    // the drawn range, for tests and for anyone reading the page's markup
    box.current.dataset.xMin = String(plot.scales.x.min)
    box.current.dataset.xMax = String(plot.scales.x.max)
    return () => plot.destroy()
  }, [JSON.stringify([x, series])])
  return html`<figure class="chart" ref=${box} aria-label=${title}><figcaption class="sr-only">${summary}</figcaption></figure>`
}
