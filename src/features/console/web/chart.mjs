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

/** Tick steps of whole units (turns, milliseconds): 1, 2, 5, 10, 20, 50 ... */
export const WHOLE_STEPS = [1, 10, 100, 1000, 10_000, 100_000].flatMap((p) => [p, 2 * p, 5 * p])

/** Pure: an axis of whole numbers `lo` to `hi`, half a unit wider either side so the first and last sit inside. */
export function wholeRange(lo, hi) {
  return [Math.floor(lo) - 0.5, Math.ceil(hi) + 0.5]
}

// the widest labels uPlot's time axis writes at the spans a day's chart has (an hour at least,
// so ticks of minutes at the finest: "12:30pm", and the date under a day's first tick): its
// default of 50 px between ticks let "10:10am" and "10:20am" overlap
const TIME_SAMPLES = ['12:30pm', '12/31/30']
const LABEL_GAP_PX = 12

/** Ticks at least a measured label and a gap apart, in CSS px, for the axis' own font. */
function labelSpace(u, axisIdx, samples) {
  const ctx = u.ctx
  ctx.save()
  ctx.font = u.axes[axisIdx].font[0]
  const widest = Math.max(...samples.map((s) => ctx.measureText(s).width))
  ctx.restore()
  return Math.ceil(widest / uPlot.pxRatio) + LABEL_GAP_PX
}

/** The ticks an axis labelled: their values, and for the x axis each label's `[text, left, right]` in CSS px (its widest line). */
function drawnTicks(u, axisIdx) {
  const axis = u.axes[axisIdx]
  const ctx = u.ctx
  ctx.save()
  ctx.font = axis.font[0]
  const values = []
  const labels = []
  for (const [i, split] of (axis._splits ?? []).entries()) {
    const text = axis._values?.[i]
    if (text == null || text === '') continue
    values.push(split)
    const width = Math.max(...String(text).split('\n').map((line) => ctx.measureText(line).width)) / uPlot.pxRatio
    const at = u.valToPos(split, axis.scale)
    labels.push([String(text), at - width / 2, at + width / 2])
  }
  ctx.restore()
  return { values, labels }
}

/** What the chart drew, on its `figure` for tests and for anyone reading the page's markup. */
function describeDrawn(u, figure) {
  const x = drawnTicks(u, 0)
  const y = drawnTicks(u, 1)
  Object.assign(figure.dataset, { xTicks: JSON.stringify(x.values), xLabels: JSON.stringify(x.labels), yTicks: JSON.stringify(y.values) })
}

/**
 * `series`: [{label, stroke, values}] over the shared `x`, in whole units (milliseconds), so y
 * ticks fall on whole numbers; `time`: x holds unix seconds; else x counts whole units (turns).
 */
export function LineChart({ title, x, series, xLabel, yLabel, time = false, summary }) {
  const box = useRef()
  useEffect(() => {
    if (!x.length) return
    const figure = box.current
    const width = Math.min(720, figure.clientWidth || 600)
    const lo = Math.min(...x)
    const hi = Math.max(...x)
    // one point: uPlot itself widens the scale to min + 86400 / opts.ms (about 2.7 years in
    // seconds), so the range is taken from the data, not from the min and max it passes
    const xScale = time
      ? { time, range: (_u, min, max) => (lo === hi ? timeAxisRange(lo, hi, lo) : timeAxisRange(min, max, lo)) }
      : { time, range: () => wholeRange(lo, hi) }
    const plot = new uPlot({
      width, height: 220, title,
      scales: { x: xScale },
      axes: [
        time ? { label: xLabel, space: (u) => labelSpace(u, 0, TIME_SAMPLES) } : { label: xLabel, incrs: WHOLE_STEPS },
        { label: yLabel, incrs: WHOLE_STEPS },
      ],
      series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: true } }))],
      hooks: {
        // the drawn range and tick labels, for tests and for anyone reading the page's markup
        setScale: [(u, key) => key === 'x' && Object.assign(figure.dataset, { xMin: String(u.scales.x.min), xMax: String(u.scales.x.max) })],
        draw: [(u) => describeDrawn(u, figure)],
      },
    }, [x, ...series.map((s) => s.values)], figure)
    return () => plot.destroy()
  }, [JSON.stringify([x, series])])
  return html`<figure class="chart" ref=${box} aria-label=${title}><figcaption class="sr-only">${summary}</figcaption></figure>`
}
