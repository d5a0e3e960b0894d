/** FNV-1a 32-bit offset basis and prime (http://www.isthe.com/chongo/tech/comp/fnv/). */
const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Hashes texts with 32-bit FNV-1a over their UTF-16 code units, so any string
 * (lone surrogates included) hashes without encoding. A NUL separator between
 * parts keeps `["ab", "c"]` and `["a", "bc"]` apart.
 *
 * @param parts - the texts to hash, in order
 * @param previous - a hash to continue from: `hashTexts(b, hashTexts(a))`
 *   equals `hashTexts([...a, ...b])`, so a long prefix is hashed once
 * @returns an unsigned 32-bit hash
 * @example
 * hashTexts(["persona-id", "hello"]); // a stable number in [0, 2^32)
 */
export function hashTexts(parts: readonly string[], previous = FNV_OFFSET_BASIS): number {
  let hash = previous;
  for (const part of parts) {
    for (let index = 0; index < part.length; index++) {
      hash ^= part.charCodeAt(index);
      hash = Math.imul(hash, FNV_PRIME);
    }
    // The separator is a NUL unit: XOR with 0 changes nothing, the multiply remains.
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** A deterministic pseudo-random source; the same seed gives the same sequence. */
export interface SeededRandom {
  /** A number in [0, 1). */
  next(): number;
  /** True with the given probability (0–1). */
  chance(probability: number): boolean;
  /** An item of a non-empty list; throws on an empty list. */
  pick<Item>(items: readonly Item[]): Item;
  /** An integer in [minimum, maximum], both included. */
  integer(minimum: number, maximum: number): number;
}

/**
 * Creates a mulberry32 generator: tiny, fast and good enough to vary
 * templates. It replaces `Math.random`, which would break determinism.
 *
 * @param seed - any number; only its low 32 bits are used
 * @example
 * const random = createSeededRandom(hashTexts(["persona-id", "hello", "0"]));
 * random.pick(["Hi.", "Hello."]);
 */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (probability) => next() < probability,
    pick<Item>(items: readonly Item[]): Item {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError("cannot pick from an empty list");
      return item;
    },
    integer: (minimum, maximum) => minimum + Math.floor(next() * (maximum - minimum + 1)),
  };
}
