// The URL fragment's encoding: round trips, and every bad fragment is an error, never a throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeState, decodeState } from '../web/fragment.js';

test('a state survives the round trip, compressed', async () => {
  const state = { v: '1.34', a: 'allow', l: 'env=prod', e: "request.namespace == 'é😀'", c: 'kind: List\n'.repeat(500), rx: 'pod-create.json' };
  const fragment = await encodeState(state);
  assert.match(fragment, /^z=[A-Za-z0-9_-]+$/);
  assert.ok(fragment.length < 300, `${fragment.length} characters`);
  assert.deepEqual(await decodeState(`#${fragment}`), { state });
});

test('unknown fields and non-strings are dropped', async () => {
  const fragment = await encodeState({ v: '1.30', x: 'y', e: 5 });
  assert.deepEqual(await decodeState(fragment), { state: { v: '1.30' } });
  const plain = `j=${Buffer.from(JSON.stringify({ r: 'text', c: ['no'] })).toString('base64url')}`;
  assert.deepEqual(await decodeState(plain), { state: { r: 'text' } });
});

test('no fragment is no state', async () => {
  assert.deepEqual(await decodeState(''), { state: null });
  assert.deepEqual(await decodeState('#'), { state: null });
});

test('bad fragments are errors', async () => {
  const bomb = await (async () => {
    // 64 MiB of zeros compresses to a short fragment: refused past the size limit.
    const zeros = new Uint8Array(64 << 20);
    const stream = new Blob([zeros]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    return `z=${Buffer.from(await new Response(stream).arrayBuffer()).toString('base64url')}`;
  })();
  for (const [fragment, error] of [
    ['#z=!!', 'not base64url'],
    ['#z=AAAA', null],
    ['#j=e30', undefined],
    [`#j=${Buffer.from('[1]').toString('base64url')}`, 'not an object'],
    [`#j=${Buffer.from('null').toString('base64url')}`, 'not an object'],
    [`#j=${Buffer.from('{').toString('base64url')}`, null],
    [`#j=${Buffer.from([0xff, 0xfe]).toString('base64url')}`, null],
    ['#something', 'unknown format'],
    [`#${bomb}`, 'too large'],
    [`#j=${'A'.repeat(5 << 20)}`, 'too long'],
  ]) {
    const out = await decodeState(fragment);
    if (error === undefined) {
      assert.deepEqual(out, { state: {} }, fragment.slice(0, 20));
    } else {
      assert.equal(typeof out.error, 'string', `${fragment.slice(0, 20)}: ${JSON.stringify(out)}`);
      if (error) assert.equal(out.error, error);
    }
  }
});
