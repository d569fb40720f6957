/**
 * The index structures grow typed arrays by doubling, keeping what they hold: one way to do it,
 * so the copy is never forgotten or cut at the wrong length in one of them.
 */

type Growable = Float32Array | Float64Array | Int32Array | Uint32Array | Uint8Array;

/** A new array of `length` items of the same type: the first `keep` items of `array` (all by default), then zeros. */
export function grown<T extends Growable>(array: T, length: number, keep = array.length): T {
  const out = new (array.constructor as new (length: number) => T)(length);
  out.set(array.subarray(0, keep));
  return out;
}
