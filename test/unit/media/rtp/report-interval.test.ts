import { describe, expect, test } from 'bun:test'
import { rtcpReportDelay } from '../../../../src/realtime/media/rtp/index.ts'

describe('RTCP report interval (RFC 3550 6.2, 6.3.1)', () => {
  test('each interval is the nominal one times a draw from [0.5, 1.5]; the first is half of that', () => {
    expect(rtcpReportDelay(5000, false, () => 0)).toBe(2500)
    expect(rtcpReportDelay(5000, false, () => 0.5)).toBe(5000)
    expect(rtcpReportDelay(5000, false, () => 0.999)).toBeCloseTo(7495, 5)
    expect(rtcpReportDelay(5000, true, () => 0)).toBe(1250)
    expect(rtcpReportDelay(5000, true, () => 0.999)).toBeCloseTo(3747.5, 5)
  })

  test('sessions started together do not report in step: 400 first reports spread over the window', () => {
    const at = Array.from({ length: 400 }, () => rtcpReportDelay(5000, true)).sort((a, b) => a - b)
    expect(at[0]!).toBeGreaterThanOrEqual(1250)
    expect(at.at(-1)!).toBeLessThan(3750)
    // with a fixed interval all 400 fall in one instant; uniform over 2.5 s, about 16 per 100 ms
    let most = 0
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[i]! - at[j]! > 100) j++
      most = Math.max(most, i - j + 1)
    }
    expect(most).toBeLessThan(60)
  })
})
