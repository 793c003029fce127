/**
 * The first of many ranking keys, without sorting them all: a page of 20 near a point or along a
 * route needs the 20 smallest of a few hundred or a few thousand keys. Sorting them all was most
 * of what ranking them cost; selecting the first ones, then sorting only those, costs a fraction
 * of it (bench/RESULTS.md, "Along's query string").
 */

/** Past this many, the front is sorted by the array's own sort rather than by insertion. */
const INSERTION_SORT_MAX = 32;

/**
 * Moves the `count` smallest of `keys` to its front, in ascending order, and returns that front (a
 * view of `keys`); the others follow in no order. With `count` at least `keys.length`, every key
 * is sorted. Keys are numbers, never NaN.
 */
export function smallestFirst(keys: Float64Array, count: number): Float64Array {
  const k = Math.max(0, Math.min(count, keys.length));
  if (k < keys.length) selectNth(keys, k - 1);
  const front = keys.subarray(0, k);
  if (k <= INSERTION_SORT_MAX) insertionSort(front);
  else front.sort();
  return front;
}

/**
 * Quickselect (Hoare's partition, a median of three as pivot): afterwards no key before index
 * `nth` is larger than the key at `nth`, and none after it smaller. Keys equal to the pivot may
 * stay on either side, which the order of the page does not depend on. A range that is still
 * being partitioned after twice the rounds a balanced one needs is sorted instead, so that no
 * arrangement of keys costs more than a sort.
 */
function selectNth(keys: Float64Array, nth: number): void {
  if (nth < 0) return;
  let lo = 0;
  let hi = keys.length - 1;
  let rounds = 2 * Math.ceil(Math.log2(keys.length + 1)) + 4;
  while (hi > lo) {
    if (rounds-- === 0) {
      keys.subarray(lo, hi + 1).sort();
      return;
    }
    const pivot = medianOfThree(keys[lo] as number, keys[(lo + hi) >>> 1] as number, keys[hi] as number);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((keys[i] as number) < pivot) i++;
      while ((keys[j] as number) > pivot) j--;
      if (i <= j) {
        const swap = keys[i] as number;
        keys[i++] = keys[j] as number;
        keys[j--] = swap;
      }
    }
    // Now keys[lo..j] <= pivot, keys[i..hi] >= pivot, and any between equal the pivot.
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}

function medianOfThree(a: number, b: number, c: number): number {
  return a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
}

function insertionSort(keys: Float64Array): void {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as number;
    let j = i - 1;
    while (j >= 0 && (keys[j] as number) > key) {
      keys[j + 1] = keys[j] as number;
      j--;
    }
    keys[j + 1] = key;
  }
}
