/**
 * Batches for an encoder: a model run pads its inputs to the longest of them, so inputs of like
 * length run together, within a budget of rows and padded tokens. Shared by the ONNX models
 * (lengths in tokens) and the teacher's sentence encoder (lengths in characters).
 */
import { throwIfAborted } from '../errors.js';

/** Options of planBatches. */
export interface BatchPlan {
  /** Most inputs per run. */
  maxBatch: number;
  /** Most padded tokens per run (rows × longest row), bounding the attention intermediates. */
  maxTokens: number;
}

/**
 * Groups inputs into runs: sorted by length so rows in a run pad little, each run within the
 * budget (a single over-long input runs alone). Returns index lists into `lengths`.
 */
export function planBatches(lengths: readonly number[], plan: BatchPlan): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const runs: number[][] = [];
  let current: number[] = [];
  for (const index of order) {
    const longest = lengths[index] as number; // sorted ascending: the newcomer is the longest
    if (current.length > 0 && (current.length >= plan.maxBatch || longest * (current.length + 1) > plan.maxTokens)) {
      runs.push(current);
      current = [];
    }
    current.push(index);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** Runs `work` on each planned batch in turn, checking the signal between runs. */
export async function runPlanned<T>(
  lengths: readonly number[],
  plan: BatchPlan,
  signal: AbortSignal | undefined,
  work: (indices: number[]) => Promise<T[]>,
): Promise<T[]> {
  const out = new Array<T>(lengths.length);
  for (const indices of planBatches(lengths, plan)) {
    throwIfAborted(signal);
    const results = await work(indices);
    indices.forEach((index, k) => (out[index] = results[k] as T));
  }
  throwIfAborted(signal);
  return out;
}
