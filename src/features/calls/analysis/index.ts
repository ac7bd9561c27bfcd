export { analysisMessages, analysisSchema, DEFAULT_ANALYSIS_PROMPT, readAnalysis, weightedScore, type Criterion } from './llm-analysis.ts'
export { callerSentiment, extractiveSummary, isVoicemail, offlineAnalysis, type AnalysisInput, type AnalysisResult } from './offline.ts'
export { AnalysisSettings, analysisSettingsOf } from './settings.ts'
export { AnalysisWorker, withAnalysisCost, type AnalysisWorkerOptions } from './worker.ts'
