/**
 * A binary min-heap of (key, value) pairs: float keys (event times), small-integer values (which
 * client the event belongs to). Keys and values live in two parallel typed arrays, so pushing and
 * popping allocate nothing and the simulator's inner loop stays fast.
 *
 * Layout: entry i has children 2i+1 and 2i+2; every key is <= its children's keys, so the smallest
 * key is at index 0. Equal keys come out in no particular order.
 */
export class MinHeap {
  #keys: Float64Array;
  #values: Int32Array;
  #size = 0;

  constructor(capacity = 64) {
    const n = Math.max(1, Math.floor(capacity));
    this.#keys = new Float64Array(n);
    this.#values = new Int32Array(n);
  }

  get size(): number {
    return this.#size;
  }

  /** Empty the heap, keeping its storage. */
  clear(): void {
    this.#size = 0;
  }

  /** The smallest key. Only valid when size > 0. */
  peekKey(): number {
    if (this.#size === 0) throw new RangeError("peek on an empty heap");
    return this.#keys[0]!;
  }

  /** The value stored with the smallest key. Only valid when size > 0. */
  peekValue(): number {
    if (this.#size === 0) throw new RangeError("peek on an empty heap");
    return this.#values[0]!;
  }

  push(key: number, value: number): void {
    if (this.#size === this.#keys.length) this.#grow();
    const keys = this.#keys;
    const values = this.#values;
    // Sift up: move the hole from the end towards the root while the parent is larger.
    let i = this.#size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk <= key) break;
      keys[i] = pk;
      values[i] = values[parent]!;
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Remove the entry with the smallest key and return its value. */
  pop(): number {
    if (this.#size === 0) throw new RangeError("pop on an empty heap");
    const top = this.#values[0]!;
    const last = --this.#size;
    if (last > 0) this.#siftDown(this.#keys[last]!, this.#values[last]!);
    return top;
  }

  /**
   * Replace the entry with the smallest key by (key, value): a pop followed by a push, in one
   * sift-down. The simulator's common case: a client's event is handled and its next one scheduled.
   */
  replaceTop(key: number, value: number): void {
    if (this.#size === 0) throw new RangeError("replaceTop on an empty heap");
    this.#siftDown(key, value);
  }

  /** Put (key, value) into the hole at the root and move the hole down until the key fits. */
  #siftDown(key: number, value: number): void {
    const keys = this.#keys;
    const values = this.#values;
    const size = this.#size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      let ck = keys[child]!;
      const right = child + 1;
      if (right < size) {
        const rk = keys[right]!;
        if (rk < ck) {
          child = right;
          ck = rk;
        }
      }
      if (key <= ck) break;
      keys[i] = ck;
      values[i] = values[child]!;
      i = child;
    }
    keys[i] = key;
    values[i] = value;
  }

  #grow(): void {
    const keys = new Float64Array(this.#keys.length * 2);
    const values = new Int32Array(this.#values.length * 2);
    keys.set(this.#keys);
    values.set(this.#values);
    this.#keys = keys;
    this.#values = values;
  }
}
