// The two models a search's candidates go through, fitted by scripts/knowledge/calibrate.ts on the
// tuning domains of test/fixtures/knowledge-domains (calibration.json): one orders the candidates
// (their features and the engine's rank relative to the best), the other turns the first ones'
// features and their margin over the runner-up into the probability that the passage answers
// the question: a threshold of 0.7 means right about 7 times in 10 on the tuning sets. Logistic
// regression, so a model is a bias and a weight per feature. Pure.
import fitted from './calibration.json' with { type: 'json' }
import type { PassageFeatures } from '../text/index.ts'

export interface Model {
  bias: number
  weights: Record<string, number>
}

export type RankingInput = PassageFeatures & { rankShare: number }
export type ConfidenceInput = PassageFeatures & { margin: number }

export const RANKING: Model = fitted.ranking
export const CONFIDENCE: Model = fitted.confidence

export function probability(model: Model, x: Record<string, number>): number {
  let z = model.bias
  for (const [name, w] of Object.entries(model.weights)) z += w * (x[name] ?? 0)
  return 1 / (1 + Math.exp(-z))
}
