import type { LineBand } from './pocketsphinx-band.ts'

/**
 * Where an utterance's cepstral mean normalisation starts. Decoded as it arrives, an utterance is
 * normalised with a running mean, and its first words with whatever the mean starts at. The
 * model's own starting mean (feat.params `-cmninit`) fits neither a phone line nor clear wideband
 * speech and garbles the first words; a phone line's band (G.711, upsampled to 16 kHz) moves the
 * mean far from wideband speech's. These are the means of speech through the en-us front end,
 * measured over four flite voices (kal16, slt, rms, awb) and four sentences each.
 */
export const PHONE_LINE_MEAN = [46.56, 27.8, -20.57, 53.42, -24.58, 13.6, 2.75, -9.21, 2.35, -10.51, 11.03, -2.25, 4.9]
export const WIDEBAND_MEAN = [52.74, 7.45, 7.17, 25.25, -2.37, 0.33, 7.06, -6.91, -3.1, -4.55, 6.03, 1.71, 1.46]

/** How many frames (10 ms each) the starting mean counts for against what the utterance brings. */
export const PRIOR_FRAMES = 50

export function startingMean(band: LineBand): { mean: Float32Array; frames: number } {
  return { mean: new Float32Array(band === 'phone' ? PHONE_LINE_MEAN : WIDEBAND_MEAN), frames: PRIOR_FRAMES }
}
