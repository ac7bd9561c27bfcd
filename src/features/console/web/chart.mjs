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
    const lo = Math.min(...x)
    const hi = Math.max(...x)
    const plot = new uPlot({
      width, height: 220, title,
      // one point: uPlot itself widens the scale to min + 86400 / opts.ms (about 2.7 years in
      // seconds), so the range is taken from the data, not from the min and max it passes
      scales: { x: time ? { time, range: (_u, min, max) => (lo === hi ? timeAxisRange(lo, hi, lo) : timeAxisRange(min, max, lo)) } : { time } },
      axes: [{ label: xLabel }, { label: yLabel }],
      series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: true } }))],
      // the drawn range, for tests and for anyone reading the page's markup
      hooks: { setScale: [(u, key) => key === 'x' && Object.assign(u.root.parentElement.dataset, { xMin: String(u.scales.x.min), xMax: String(u.scales.x.max) })] },
    }, [x, ...series.map((s) => s.values)], box.current)
    return () => plot.destroy()
  }, [JSON.stringify([x, series])])
  return html`<figure class="chart" ref=${box} aria-label=${title}><figcaption class="sr-only">${summary}</figcaption></figure>`
}
