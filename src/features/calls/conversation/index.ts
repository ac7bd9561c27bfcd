// One call's conversation: its media, recording, voice session and brain, on whichever thread
// carries the call (the main thread, or a call worker). Nothing here touches SIP or the call row.
export { LocalConversation, localPlacer, type ConversationDeps } from './conversation.ts'
export { CallWorkerFailed, type AnsweredInfo, type CallPlacement, type CallPlacer, type Conversation, type ConversationEvents, type ConversationInit, type ConversationResult, type ActionResult, type MediaAction, type PlaceOptions, type WebLeg } from './conversation-types.ts'
export { agentProfile, callVariables, type CallLines } from './profile.ts'
export { mediaFacts, webCallFacts, type MediaFacts, type WebFailure } from './media-facts.ts'
export type { CallControls, KnowledgePassage, KnowledgeQueryOptions, TransferFailure, TransferOutcome } from './tools.ts'
