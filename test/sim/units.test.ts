import { SIM_DEFAULTS, type SimConfig } from '../../src/sim/config.js';
import { saturationRate } from '../../src/sim/engine.js';
import { faultToken } from '../../src/sim/faults.js';
import { KvCache } from '../../src/sim/kv-cache.js';
import { sampleOutputLength, seededRandom } from '../../src/sim/random.js';
import { Sequence } from '../../src/sim/sequence.js';
import { Stalls } from '../../src/sim/stalls.js';
import { blockHashes, chatText, countTokens, tokenIds } from '../../src/sim/tokenize.js';

test('one token per whitespace-separated word; chat counts every message, no template', () => {
  expect(countTokens('  The quick\tbrown\n\nfox  ')).toBe(4);
  expect(countTokens('')).toBe(0);
  const text = chatText([
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'hi there' }, { type: 'image_url' }] },
  ])!;
  expect(countTokens(text)).toBe(4);
  expect(tokenIds('a b a')).toEqual([tokenIds('a')[0], tokenIds('b')[0], tokenIds('a')[0]]);
});

test('block keys are chained: a shared prefix shares keys, a difference changes every later key', () => {
  const a = blockHashes(tokenIds('p q r s t u v w'), 2);
  const b = blockHashes(tokenIds('p q r s X u v w'), 2);
  expect(a).toHaveLength(4);
  expect(b.slice(0, 2)).toEqual(a.slice(0, 2));
  expect(b[2]).not.toBe(a[2]);
  expect(b[3]).not.toBe(a[3]);
  expect(blockHashes(tokenIds('p q r'), 2)).toHaveLength(1); // partial blocks are not cached
});

test('a stall freezes the engine clock for exactly its overlap', () => {
  const s = new Stalls({ duration_ms: 100, at_ms: [1000] }, 0);
  expect(s.advance(0, 50)).toBe(50);
  expect(s.advance(980, 50)).toBe(1130); // 20 ms before, 30 ms after the stall
  expect(s.advance(1050, 0)).toBe(1100); // work arriving mid-stall waits for its end
  const periodic = new Stalls({ duration_ms: 10, every_ms: 100 }, 0);
  expect(periodic.advance(0, 250)).toBe(270);
  periodic.add(315, 5);
  expect(periodic.advance(290, 20)).toBe(325); // work 290–300, stall to 310, work to 315, ad hoc stall to 320, work to 325
  periodic.add(600, 5);
  expect(periodic.advance(590, 20)).toBe(620); // overlapping stalls (600–605 inside 600–610) merge
});

test('saturationRate follows the derivation in the Engine doc comment', () => {
  const c: SimConfig = { ...SIM_DEFAULTS, max_num_seqs: 4, decode_base_ms: 4, decode_ms_per_seq: 1, prefill_ms_per_token: 0.02 };
  // per request: 20·4/4 + 1·19 + 0.02·50 = 40 ms of engine time
  expect(saturationRate(c, 50, 20)).toBeCloseTo(25, 6);
  expect(saturationRate({ ...c, slowdown: 1.25 }, 50, 20)).toBeCloseTo(20, 6);
  // memory-bound: 10 blocks of 16 hold 2 sequences of 70 tokens (5 blocks each)
  expect(saturationRate({ ...c, kv_cache_tokens: 160 }, 50, 20)).toBeCloseTo(1000 / ((20 * 4) / 2 + 19 + 1), 6);
});

test('the KV cache reserves whole sequences, shares prompt blocks and evicts least recently used', () => {
  const kv = new KvCache(64, 4); // 16 blocks
  const keysA = blockHashes(tokenIds(Array.from({ length: 16 }, (_, i) => `a${i}`).join(' ')), 4);
  const seq = (keys: number[], prompt = 16, out = 8) => new Sequence(0, prompt, keys, out, { admitted() {}, token: (t) => t });
  const a1 = seq(keysA);
  expect(kv.admit(a1)).toBe(true); // 6 blocks
  expect(a1.cachedTokens).toBe(0);
  kv.publish(a1);
  const a2 = seq(keysA);
  expect(kv.admit(a2)).toBe(true);
  expect(a2.cachedTokens).toBe(12); // 3 of 4 blocks: the last prompt token is always recomputed
  expect(kv.usage()).toBeCloseTo(9 / 16);
  expect(kv.admit(seq([], 40, 8))).toBe(false); // 12 blocks do not fit in the 7 left
  kv.release(a1);
  kv.release(a2);
  expect(kv.usage()).toBe(0); // cached blocks count as free, as in vLLM
  expect(kv.admit(seq([], 40, 20))).toBe(true); // 15 blocks: evicts all but one cached block
  const a3 = seq(keysA);
  expect(kv.admit(a3)).toBe(false);
  expect(kv.queriedTokens).toBe(16 * 2 + 40);
  expect(kv.hitTokens).toBe(12);
});

test('fault positions and output lengths are deterministic and in range', () => {
  expect(faultToken(0, 10)).toBe(1);
  expect(faultToken(0.999, 10)).toBe(9);
  expect(faultToken(0.5, 1)).toBe(1);
  const draw = (seed: number) => {
    const r = seededRandom(seed);
    return Array.from({ length: 20000 }, () => sampleOutputLength({ dist: 'geometric', mean: 50 }, r));
  };
  const a = draw(7);
  expect(draw(7)).toEqual(a);
  expect(Math.min(...a)).toBeGreaterThanOrEqual(1);
  expect(a.reduce((s, x) => s + x, 0) / a.length).toBeGreaterThan(48);
  expect(a.reduce((s, x) => s + x, 0) / a.length).toBeLessThan(52);
});
