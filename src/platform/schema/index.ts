// The API's vocabulary below the features: request and response schemas (TypeBox through
// Elysia's `t`), the validation errors they produce, and untrusted JSON read within bounds.
export * from './models.ts'
export { cut, fromValidation, MAX_FIELD_ISSUES, MAX_MESSAGE_CHARS, pointerToPath, type ValidationLike } from './validation.ts'
export { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, isBlank, isJsonType, JOB_JSON_LIMITS, JSON_LIMITS, jsonShapeProblem, OPEN_ARRAY, OPEN_OBJECT, parseJsonObject, QUOTE, readBytes, tooLarge, unsupportedType } from './json.ts'
export { refuseUnknownFields, UNKNOWN_FIELD, type UnknownFieldIssue, unknownFieldIssues, unknownFields } from './unknown-fields.ts'
