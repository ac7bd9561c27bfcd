// Public face of the SIP user agent: import the SIP layer only through this file.
export * from './message.ts'
export * from './grammar.ts'
export * from './parse.ts'
export * from './validate.ts'
