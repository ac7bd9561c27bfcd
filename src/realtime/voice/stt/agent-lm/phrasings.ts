/**
 * How callers put things, whatever the agent: the frames its own words are said in. `{}` takes
 * each of the agent's vocabulary entries, so a name the general model never saw arrives in a
 * sentence rather than alone.
 */
export const CALLER_PHRASINGS: readonly string[] = [
  "hi i'd like to book an appointment",
  'i want to make an appointment',
  'can i speak to someone please',
  'can i talk to a person',
  'what are your opening hours',
  'when are you open',
  'i need to cancel my appointment',
  'i want to change my booking',
  'how much does it cost',
  'where are you located',
  'do you take insurance',
  'yes please',
  'no thanks',
  "that's right",
  'thank you goodbye',
  'can you tell me about your services',
  'i have a question about my bill',
  "i'm calling about my order",
  'is there parking',
  'can you repeat that',
]

export const VOCABULARY_FRAMES: readonly string[] = [
  '{}',
  'i want to ask about {}',
  'can you tell me about {}',
  "i'm calling about {}",
  'do you have {}',
  'is {} available',
]
