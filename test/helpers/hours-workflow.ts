// The keyword workflow the web-call, media-stream and console browser-call tests talk to: a
// greeting, "hours" moves on to the opening hours, anything else says goodbye.
export const hoursWorkflow = (greeting: string) => ({
  nodes: [
    { id: 'start', type: 'start', config: { text: greeting } },
    { id: 'hours', type: 'say', config: { text: 'We are open nine to five.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'hours', condition: { type: 'keywords', keywords: ['hours'] } },
    { from: 'start', to: 'bye', condition: { type: 'else' } },
    { from: 'hours', to: 'bye' },
  ],
})
