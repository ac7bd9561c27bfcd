// Documents as passages and passages as speech: HTML and Markdown outlines, FAQ rows, chunks that
// follow sections, what an agent says of a passage, and inputs built to make a parser rescan.
import { describe, expect, test } from 'bun:test'
import { answerKind, chunkOutline, outline, spokenAnswer, speakableText, statesKind } from '../../../src/features/knowledge/text/index.ts'
import { linkWords } from '../../../src/features/knowledge/text/outline.ts'
import { htmlToText } from '../../../src/features/knowledge/text/html.ts'

describe('HTML as text', () => {
  test('headings, paragraphs, lists and table cells come through; script, style, nav, head and comments do not', () => {
    const page = htmlToText(`<!doctype html><html><head><title>Site | Hours</title><style>p{color:red}</style></head>
      <body><nav><a href="/">Home</a></nav><h1>Opening hours</h1><p>We open at <b>8&nbsp;am</b> &amp; close at 6&#160;pm.</p>
      <!-- hidden --><h2>Holidays</h2><ul><li>New Year&#x27;s Day</li><li>Christmas</li></ul>
      <table><tr><th>Day</th><th>Hours</th></tr><tr><td>Saturday</td><td>8-1</td></tr></table><script>var x = '<h1>no</h1>'</script></body></html>`)
    expect(page.title).toBe('Site | Hours')
    expect(page.text).toBe("# Opening hours\n\nWe open at 8 am & close at 6 pm.\n\n## Holidays\n\n- New Year's Day\n- Christmas\n\nDay; Hours\nSaturday; 8-1")
    expect(page.runsScript).toBe(true)
  })

  test('a page runs script through a script element, an event handler or a javascript: link, and not through words about them', () => {
    expect(htmlToText('<p onmouseover="x()">hi</p>').runsScript).toBe(true)
    expect(htmlToText('<a href = " javascript:x()">hi</a>').runsScript).toBe(true)
    expect(htmlToText('<form action="javascript:x()"></form>').runsScript).toBe(true)
    expect(htmlToText('<p>Our online booking uses javascript: turn it on. Call us on weekdays.</p>').runsScript).toBe(false)
    expect(htmlToText('<p class="one">onion=3</p>').runsScript).toBe(false)
  })

  // the third hardening round stored each of these with 200, and Chromium ran their script
  const bypasses: [string, string][] = [
    ['a comment the browser closes at once', '<p>Hours</p><!--><script>alert(1)</script>-->'],
    ['an iframe srcdoc with the script as references', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>'],
    ['a javascript: link with a hex reference', '<a href="jav&#x61;script:alert(1)">x</a>'],
    ['a javascript: link with a named colon', '<a href="javascript&colon;alert(1)">x</a>'],
    ['a javascript: link with a tab inside', '<a href="java&#9;script:alert(1)">x</a>'],
    ['a javascript: link with a newline inside', '<a href="java\nscript:alert(1)">x</a>'],
    ['a control character before the scheme', '<a href="&#1;javascript:alert(1)">x</a>'],
    ['an SVG script', '<svg><script>alert(1)</script></svg>'],
    ['an SVG animation setting href', '<svg><a><animate attributeName="href" values="javascript:alert(1)"/><text>x</text></a></svg>'],
    ['a handler in SVG', '<svg onload="alert(1)"></svg>'],
    ['an upper-case handler', '<IMG SRC=x ONERROR=alert(1)>'],
    ['a handler after a slash', '<img/src="x"/onerror=alert(1)>'],
    ['a data: HTML iframe', '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>'],
    ['a meta refresh to javascript:', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
    ['a form button action', '<form><button formaction="javascript:alert(1)">x</button></form>'],
    ['a script in a template', '<template><script>alert(1)</script></template>'],
    ['a srcdoc inside a srcdoc', `<iframe srcdoc="<iframe srcdoc='&lt;script&gt;alert(1)&lt;/script&gt;'></iframe>"></iframe>`],
  ]
  for (const [what, html] of bypasses) {
    test(`a page that runs script through ${what} is told to run script`, () => {
      expect(htmlToText(html).runsScript).toBe(true)
    })
  }

  test('pages whose words, comments or plain links only mention script do not run it', () => {
    for (const html of [
      '<p>Turn on JavaScript: our booking page needs it.</p>',
      '<!-- <script>old()</script> --><p>Hours</p>',
      '<a href="https://example.org/javascript:faq">FAQ</a>',
      '<p title="onload">x</p>',
      '<textarea><script>not run</script></textarea>',
    ]) expect({ html, runs: htmlToText(html).runsScript }).toEqual({ html, runs: false })
  })

  test('a page of a million unclosed tags, comments or entities is read in one pass', () => {
    const started = performance.now()
    for (const bad of ['<a'.repeat(500_000), '<!--'.repeat(250_000), '&#'.repeat(500_000), '<p>'.repeat(300_000) + 'x', '<script>'.repeat(100_000)]) htmlToText(bad)
    // a rescan of any of these would take minutes; one pass each takes well under a second even on a slow machine
    expect(performance.now() - started).toBeLessThan(20_000)
  })
})

describe('Markdown as sections', () => {
  test('the first top heading is the title; deeper headings make the section path; links keep their words', () => {
    const doc = outline('markdown', '# Clinic\n\nIntro text.\n\n## Hours\n\n### Saturday\n\nOpen [8 to 1](https://x.example/hours) on *Saturday*.\n\nSetext\n------\n\nUnder it.')
    expect(doc.title).toBe('Clinic')
    expect(doc.sections).toEqual([
      { heading: '', paragraphs: ['Intro text.'] },
      { heading: 'Hours', paragraphs: [] },
      { heading: 'Hours > Saturday', paragraphs: ['Open 8 to 1 on Saturday.'] },
      { heading: 'Setext', paragraphs: ['Under it.'] },
    ])
  })

  test('links, images and brackets: a line of a million brackets is read in one pass', () => {
    expect(linkWords('see [our map](http://x/y) and ![the door](d.png), [not a link] (x)')).toBe('see our map and the door, [not a link] (x)')
    expect(linkWords('[a [b](c)')).toBe('[a b')
    const started = performance.now()
    linkWords('['.repeat(1_000_000))
    linkWords('[x]('.repeat(300_000))
    outline('markdown', `${'*a '.repeat(300_000)}\n${'![x'.repeat(300_000)}`)
    expect(performance.now() - started).toBeLessThan(20_000)
  })

  test('an FAQ CSV is a row per question; rows missing either half are left out', () => {
    const doc = outline('faq_csv', 'question,answer,owner\n"Do you park cars?","Yes, free, for ""two"" hours.",x\n,orphan answer\nno answer,\n')
    expect(doc.faq).toEqual([{ question: 'Do you park cars?', answer: 'Yes, free, for "two" hours.' }])
  })
})

describe('passages', () => {
  test('a section is one passage while it is short; a long one is cut at sentence ends; FAQ rows stay whole', () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something about the clinic.`).join(' ')
    const chunks = chunkOutline({ title: 'T', sections: [{ heading: 'A', paragraphs: ['One.', 'Two.'] }, { heading: 'B', paragraphs: [long] }], faq: [{ question: 'Q?', answer: 'A.' }], runsScript: false }, 'name')
    expect(chunks[0]).toMatchObject({ section: 'Q?', body: 'Q?\nA.', answer: 'A.', title: 'T' })
    expect(chunks[1]).toMatchObject({ section: 'A', body: 'One.\n\nTwo.', answer: null })
    const b = chunks.filter((c) => c.section === 'B')
    expect(b.length).toBeGreaterThan(1)
    expect(b.map((c) => c.body).join(' ').replace(/\s+/g, ' ')).toBe(long)
    expect(b.every((c) => c.body.endsWith('clinic.'))).toBe(true)
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i))
  })

  test('the same passage has the same hash, a changed one another', () => {
    const one = chunkOutline(outline('markdown', '## A\n\nSame.\n\n## B\n\nOld.'), 'x')
    const two = chunkOutline(outline('markdown', '## A\n\nSame.\n\n## B\n\nNew.'), 'x')
    expect(one[0]!.hash).toBe(two[0]!.hash)
    expect(one[1]!.hash).not.toBe(two[1]!.hash)
  })
})

describe('what an agent says', () => {
  test('markup and URLs are stripped, list items become sentences', () => {
    expect(speakableText('## Parking\n- **Free** for 2 hours, see https://x.example/parking\n- Then $2 an hour')).toBe('Parking. Free for 2 hours, see. Then $2 an hour.')
  })

  test('a long passage is cut at sentences to the run that holds the caller\'s words', () => {
    const passage = 'The clinic opens at 8 am on weekdays. Doctors see patients all day. On Saturday the clinic closes at 1 pm. Sunday is closed.'
    expect(spokenAnswer(passage, ['saturday', 'close'], 60)).toBe('On Saturday the clinic closes at 1 pm. Sunday is closed.')
    expect(spokenAnswer(passage, [], 60)).toBe('The clinic opens at 8 am on weekdays.')
    expect(spokenAnswer('One sentence that is far too long to say in the few characters allowed here', [], 30)).toBe('One sentence that is far too…')
  })
})

describe('the sentence that answers', () => {
  test('a question asks for a time, an amount, a yes or no, a place or a number to call', () => {
    expect(answerKind('hey um when is the deadline to apply')).toBe('when')
    expect(answerKind('so how much is the copay for a visit')).toBe('how_much')
    expect(answerKind('um can I bring my dog on the plane')).toBe('yes_no')
    expect(answerKind('do I need my dogs shot records')).toBe('yes_no')
    expect(answerKind('where do I send the form')).toBe('where')
    expect(answerKind('what number do I call for help')).toBe('phone')
    expect(answerKind('tell me about the program')).toBe('other')
  })

  test('a price states an amount plainly, words about costs only a little', () => {
    expect(statesKind('Each visit costs $15.', 'how_much')).toBe(2)
    expect(statesKind('There is a fee for some visits.', 'how_much')).toBe(1)
    expect(statesKind('We open the gate to visitors.', 'how_much')).toBe(0)
  })

  test('the spoken excerpt holds the sentence stating the fact asked beside the one holding the caller\'s words', () => {
    const pets = 'We welcome small vaccinated domestic cats and dogs in the cabin. No documentation is required for travel within the country. Pets must stay in their carrier.'
    expect(spokenAnswer(pets, ['need', 'dogs', 'shot', 'records'], 130, 'yes_no')).toContain('No documentation is required')
    // without a kind asked, the sentence with the caller's words is said
    expect(spokenAnswer(pets, ['dogs', 'cabin'], 80)).toContain('cats and dogs in the cabin')
  })

  test('the run said is the one holding most of the caller\'s words and the fact asked, not the one starting at the best single sentence', () => {
    const codes = 'Sign in to your account first. Type the code into the field. Each code expires after ten minutes. Your account page lists your phone numbers. Add a phone number on that page. We text the code to the number you chose.'
    // "the code you text me, how long do I have to type it in": the last sentence alone holds the rarest word
    expect(spokenAnswer(codes, ['code', 'text', 'type', 'long'], 80, 'how_much')).toBe('Type the code into the field. Each code expires after ten minutes.')
  })
})
