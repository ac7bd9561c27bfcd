// The zones a campaign contact is called in: its number's from libphonenumber's prefix data, the
// precedence of its own zone, its number's and the job's, and the zone names a contact may give.
import { describe, expect, test } from 'bun:test'
import { DateTime } from 'luxon'
import { canonicalZone, chooseZones, numberZones, prefixDataZones } from '../../src/features/campaigns/zones/index.ts'

describe("a number's zones, by its longest known prefix", () => {
  test.each([
    ['+12125550100', ['America/New_York']],
    ['+14155550100', ['America/Los_Angeles']],
    ['+18085550100', ['Pacific/Honolulu']],
    ['+442079460958', ['Europe/London']],
    ['+4930901820', ['Europe/Berlin']],
    ['+61291234567', ['Australia/Sydney']],
    ['+16055550100', ['America/Denver', 'America/North_Dakota/Center']], // South Dakota: Mountain and Central
    ['+88212345678', []], // international networks: no zone
  ])('%s is in %j', (e164, zones) => {
    expect(numberZones(e164)).toEqual(zones)
  })

  test('+1 800 (toll-free) may be anywhere +1 reaches, Pago Pago to Guam', () => {
    const zones = numberZones('+18005550100')
    expect(zones.length).toBe(42)
    expect(zones).toEqual(expect.arrayContaining(['America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu', 'Pacific/Guam', 'Pacific/Pago_Pago', 'America/St_Johns']))
  })

  test('every zone the prefix data names is known to the platform, so no window is read in a zone it cannot compute', () => {
    const unknown = [...prefixDataZones()].filter((z) => canonicalZone(z) === undefined || !DateTime.now().setZone(z).isValid)
    expect(unknown).toEqual([])
    expect(prefixDataZones().size).toBeGreaterThan(250)
  })
})

describe('which zones a contact is called in', () => {
  const ny = ['America/New_York']
  const several = ['America/Denver', 'America/North_Dakota/Center']
  test.each([
    ['its own zone first, whatever its number says', 'America/Chicago', ny, 'Europe/Paris', { zones: ['America/Chicago'], source: 'contact' }],
    ["a number's one zone before the job's", undefined, ny, 'America/Los_Angeles', { zones: ny, source: 'number' }],
    ["the job's zone for a number of several zones", null, several, 'America/Denver', { zones: ['America/Denver'], source: 'job' }],
    ["the job's zone for a number of no zone", null, [], 'Europe/Paris', { zones: ['Europe/Paris'], source: 'job' }],
    ['every zone of the number when the job sets none', undefined, several, undefined, { zones: several, source: 'number' }],
    ['no zone at all when nothing is known', undefined, [], undefined, { zones: [], source: 'number' }],
  ] as const)('%s', (_, own, number, job, expected) => {
    expect(chooseZones(own, number, job)).toEqual(expected as any)
  })
})

describe('zone names a contact may give', () => {
  test.each([
    ['America/New_York', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['UTC', 'UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    ['Mars/Olympus', undefined],
    ['local', undefined], // the host's zone is no one's
    ['+03:00', undefined],
    ['', undefined],
  ])('%j reads as %j', (name, canonical) => {
    expect(canonicalZone(name)).toBe(canonical)
  })
})
