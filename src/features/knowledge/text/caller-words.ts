// What callers say for what documents write: colloquial words and phrases of phone calls to a
// business (a clinic, a shop, an office), each with the words a document would use instead. A
// search looks for both. Written as general English, not for any one set of documents; the
// operator's own words belong in their documents (an FAQ row per question callers ask).

const LIST = `
doc, docs: doctor
lady doctor, woman doctor: female doctor
guy doctor, man doctor: male doctor
nurse practitioner: nurse
shot, shots, jab, jabs: vaccine, vaccination, injection
flu shot: flu vaccine
meds, medication, pills, tablets: medicine, prescription
script, scripts, rx: prescription
refill, refills: repeat prescription
er, emergency room: emergency department, emergency
urgent care: walk-in
house call, house calls: home visit
checkup, check up: check-up, physical exam
physical therapist, physical therapy, pt: physiotherapy, physiotherapist, physio
blood work, bloodwork, blood draw: blood test
not eat, empty stomach, skip breakfast: fasting
second, other: secondary
labs: lab tests
results back: results
shut, close, closing: closes, closed
open late: evening hours
hours: opening hours
weekend: saturday, sunday
tonight, overnight: after hours
fourth of july, july fourth: independence day
new years: new year
xmas: christmas
thanksgiving day: thanksgiving
cost, price, how much, charge, fee: cost, price, fee, costs
cheap, afford, cant afford, low income: financial assistance, discount
pay off, little at a time, installments, monthly payments: payment plan, installments
bill, invoice, statement: bill, statement
amex: american express
card, credit card: credit card, debit card
insurance, insurer, coverage, covered: insurance, plan
copay, co-pay: copay, copayment
refund, money back: refund
park, parking: parking, garage
car park: parking
bus, train: bus, transit
wheelchair: accessible, accessibility
directions, address, located, where are you: address, directions
phone number, number to call: phone number, extension
fax: fax number
email, e-mail: email
website, site, online: portal, online
app: portal
sign up, register, join: register, registration
new patient, new patients, taking patients, accepting patients: new patients
transfer, move, switch: transfer
old doctor, previous doctor, last doctor: previous doctor
records, chart, file: medical records
complain, complaint, unhappy, not happy, upset: complaint, patient relations
lost, left, forgot, umbrella, wallet, phone: lost and found
kid, kids, child, children, son, daughter, baby, toddler: child, children, pediatric
mom, dad, mother, father, parent, elderly, senior, seniors: parent, senior
travel, trip, abroad, overseas, vacation: travel
sick note, doctors note, work note: doctor's note, sick note
cancel, reschedule, change appointment: cancel, change
appointment, appt, booking: appointment
book, make an appointment, schedule: book
walk in, walk-in, no appointment: walk-in
same day, today: same-day
video call, video visit, zoom: video visit, telehealth
phone call, phone visit: phone appointment
wait, waiting: wait, waiting time
talk, chat: speak
late, running late: late arrival
interpreter, translator, speak spanish: interpreter, languages
stress, anxiety, depression, mental health: behavioral health
`

/** Caller word or phrase -> the words documents use for it. */
export const CALLER_WORDS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>()
  for (const line of LIST.split('\n')) {
    const at = line.indexOf(':')
    if (at < 0) continue
    const to = line.slice(at + 1).split(',').map((w) => w.trim().toLowerCase()).filter(Boolean)
    for (const from of line.slice(0, at).split(',').map((w) => w.trim().toLowerCase().replace(/['’]/g, '')).filter(Boolean)) {
      map.set(from, [...new Set([...(map.get(from) ?? []), ...to.filter((w) => w !== from)])])
    }
  }
  return map
})()

/** Longest caller phrase, in words. */
export const MAX_PHRASE_WORDS = Math.max(...[...CALLER_WORDS.keys()].map((k) => k.split(' ').length))
