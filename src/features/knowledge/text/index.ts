// Documents as passages, callers' words as searches, and passages as an agent says them: the
// pure text side of knowledge bases.
export { answerKind, type AnswerKind, statesKind } from './answer-kind.ts'
export { chunkOutline, sentences, type Chunk } from './chunk.ts'
export { confidence, evidenceOf, rareTerms, type TermEvidence, unknownTerms } from './confidence.ts'
export { holdsForm, passageWords, type PassageWords } from './match.ts'
export { spokenBits } from './english.ts'
export { formatOf, outline, type DocumentFormat, type Outline } from './outline.ts'
export { callerQuery, type CallerQuery, type Form, type SoundTerm, soundsFor } from './query.ts'
export { soundKey, soundsOf } from './sounds.ts'
export { spokenAnswer, speakableText } from './speakable.ts'
export { passageFeatures, type PassageFeatures } from './features.ts'
