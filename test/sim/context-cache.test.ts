import { contextBlockKeys } from '../../src/sim/context-cache.js';
import { KvCache } from '../../src/sim/kv-cache.js';
import { Sequence } from '../../src/sim/sequence.js';
import { tokenIds } from '../../src/sim/tokenize.js';

const BLOCK = 16;
const sink = { admitted() {}, token: () => 0 };
const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

function sequence(text: string, outputTokens: number): Sequence {
  const keys = contextBlockKeys(tokenIds(text), outputTokens, BLOCK);
  return new Sequence(0, tokenIds(text).length, keys.prompt, outputTokens, sink, keys.reply);
}

/** One sequence through admission, prefill and its end, as the engine takes it. */
function serve(kv: KvCache, seq: Sequence): number {
  expect(kv.admit(seq)).toBe(true);
  kv.publish(seq);
  kv.publishReply(seq);
  kv.release(seq);
  return seq.cachedTokens;
}

test('a conversation’s next turn finds the previous prompt and its reply cached, to the last full block', () => {
  const kv = new KvCache(4096, BLOCK);
  const first = words('u', 40);
  expect(serve(kv, sequence(first, 30))).toBe(0);
  // Turn 2 resends turn 1's prompt and the simulator's reply (its output word per token), then a new message.
  const second = `${first}\n${' tok'.repeat(30)}\n${words('v', 20)}`;
  // 40 + 30 = 70 tokens of context: 4 full blocks (64 tokens) were cached, 2 from the prompt, 2 from the reply.
  expect(serve(kv, sequence(second, 30))).toBe(64);
  const third = `${second}\n${' tok'.repeat(30)}\n${words('w', 5)}`;
  expect(serve(kv, sequence(third, 8))).toBe(Math.floor((90 + 30) / BLOCK) * BLOCK);
});

test('without the reply resent, only the prompt’s blocks hit; the cache stays within the KV budget', () => {
  const kv = new KvCache(4096, BLOCK);
  const first = words('u', 40);
  serve(kv, sequence(first, 30));
  expect(serve(kv, sequence(`${first}\n${words('x', 30)}`, 4))).toBe(32);
  expect(kv.usage()).toBe(0);
});
