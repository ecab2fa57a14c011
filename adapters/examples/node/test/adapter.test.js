'use strict';
// Tests of adapter.js as a process, as the runner drives it: PROTOCOL.md's
// worked transcript, and broken lines that must each get one error reply
// without stopping the loop. Run: node --test test/

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ADAPTER = path.join(__dirname, '../adapter.js');
const PROTOCOL_MD = path.join(__dirname, '../../../../protocol/PROTOCOL.md');

// Feeds raw stdin to a fresh adapter; its status, reply lines and stderr.
function exchange(input) {
  const done = spawnSync(process.execPath, [ADAPTER], { input, maxBuffer: 1 << 30 });
  const stdout = done.stdout.toString('utf8');
  assert.ok(stdout === '' || stdout.endsWith('\n'), 'the last reply ends with a newline');
  return { status: done.status, signal: done.signal, replies: stdout.split('\n').slice(0, -1).map((l) => JSON.parse(l)), stderr: done.stderr.toString() };
}

const lines = (requests) => requests.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

test('the worked transcript of PROTOCOL.md, reply for reply', () => {
  const text = fs.readFileSync(PROTOCOL_MD, 'utf8');
  const requests = text.split('\n').filter((l) => l.startsWith('-> ')).map((l) => l.slice(3));
  const expected = text.split('\n').filter((l) => l.startsWith('<- ')).map((l) => JSON.parse(l.slice(3)));
  assert.ok(requests.length >= 7);
  const { status, replies } = exchange(lines(requests));
  assert.equal(status, 0);
  assert.equal(replies.length, expected.length);
  replies.forEach((reply, i) => {
    const want = expected[i];
    assert.equal(reply.id, want.id);
    assert.equal(reply.result, want.result);
    if (want.result === 'accept') {
      // Dimensions come back as decimal strings ("int64": "string").
      assert.deepEqual(reply.tensors, want.tensors.map((t) => ({ ...t, shape: t.shape.map(String) })));
    }
    if (want.result === 'block') assert.equal(reply.block, want.block);
    if (want.result === 'reject') {
      assert.equal(reply.class, want.class);
      assert.equal(reply.rule, want.rule);
      assert.equal(reply.offset, String(want.offset));
    }
    if (want.name) {
      assert.equal(reply.int64, 'string');
      assert.deepEqual(reply.profiles, want.profiles);
      assert.deepEqual(reply.hurray_tier2, want.hurray_tier2);
    }
  });
});

test('every broken line gets exactly one error reply, and the loop goes on', () => {
  const broken = [
    'not json',
    '',
    '[]',
    '"a string"',
    'null',
    '{"op":"decode","block":"00"} x',
    '{"op":"hello","protocol":2,"id":1}',
    '{"op":"hello","protocol":"1","id":2}',
    '{"id":3}',
    '{"op":"transcode","id":4}',
    '{"op":"decode","id":5}',
    '{"op":"decode","block":"4b49zz","id":6}',
    '{"op":"decode","block":"4b4","id":7}',
    '{"op":"decode","block":42,"id":8}',
    '{"op":"decode","profile":"kiln-v3","block":"","id":9}',
    '{"op":"decode","case":7,"block":"","id":10}',
    '{"op":"encode","tensors":{},"id":11}',
    '{"op":"encode","tensors":[null],"id":12}',
    '{"op":"encode","tensors":[{"name":"x"}],"id":13}',
    '{"op":"encode","tensors":[{"name":"x","dtype":-1,"shape":[],"layout":null,"block_size":0,"payload":""}],"id":14}',
    '{"op":"encode","tensors":[{"name":"x","dtype":1.5,"shape":[],"layout":null,"block_size":0,"payload":""}],"id":15}',
    '{"op":"encode","tensors":[{"name":"x","dtype":65536,"shape":[],"layout":null,"block_size":0,"payload":""}],"id":16}',
    '{"op":"encode","tensors":[{"name":"x","dtype":9,"shape":["-1"],"layout":null,"block_size":0,"payload":""}],"id":17}',
    '{"op":"encode","tensors":[{"name":"x","dtype":9,"shape":["18446744073709551616"],"layout":null,"block_size":0,"payload":""}],"id":18}',
    '{"op":"encode","tensors":[{"name":"x","dtype":9,"shape":["01"],"layout":null,"block_size":0,"payload":""}],"id":19}',
    '{"op":"encode","tensors":[{"name":"x","dtype":9,"shape":[18446744073709551615],"layout":null,"block_size":0,"payload":""}],"id":20}',
    '{"op":"encode","tensors":[{"name":"x","dtype":9,"shape":[],"layout":7,"block_size":0,"payload":""}],"id":21}',
    '{"op":"decode","profile":"hurray-elements","tag":256,"shape":[],"data":"","id":22}',
    '{"op":"decode","profile":"hurray-elements","tag":1,"shape":[],"mode":"lenient","data":"","id":23}',
    '{"op":"encode","profile":"hurray-elements","tag":1,"shape":["1"],"elements":["zz"],"id":24}',
    '{"op":"encode","profile":"hurray-elements","tag":1,"shape":["1"],"elements":[""],"id":25}',
    '{"op":"encode","profile":"hurray-elements","tag":1,"shape":["1"],"elements":[1],"id":26}',
    `{"op":"decode","block":"${'[['.repeat(10000)}","id":27}`,
    '['.repeat(100000),
  ];
  const hello = '{"op":"hello","protocol":1,"id":99}';
  const input = Buffer.concat([
    Buffer.from(lines(broken)),
    Buffer.from([0xff, 0xfe, 0x0a]),                          // not UTF-8
    Buffer.from('{"op":"decode","block":"00","id":30}\0\n'),  // NUL after the object
    Buffer.from(`${hello}\n`),
  ]);
  const { status, replies } = exchange(input);
  assert.equal(status, 0);
  assert.equal(replies.length, broken.length + 3);
  replies.slice(0, -1).forEach((reply, i) => {
    assert.equal(reply.result, 'error', `line ${i}: ${JSON.stringify(reply)}`);
    assert.equal(typeof reply.message, 'string');
  });
  // Ids are echoed even on error replies, when the line had one.
  assert.deepEqual(replies.filter((r) => r.id !== undefined).map((r) => r.id).slice(0, 5), [1, 2, 3, 4, 5]);
  assert.equal(replies.at(-1).id, 99);
  assert.equal(replies.at(-1).name, 'kiln-node');
});

test('dimensions: decimal strings and exact numbers in, decimal strings out', () => {
  const max = '18446744073709551615';
  const tensor = { name: 'x', dtype: 9, shape: [max, '0'], layout: null, block_size: 0, payload: '' };
  const { replies } = exchange(lines([
    { op: 'encode', tensors: [tensor], id: 1 },
    { op: 'encode', tensors: [{ ...tensor, shape: [3], payload: '010203' }], id: 2 },
    { op: 'decode', profile: 'hurray-elements', tag: 0x20, shape: [max], data: '', id: 3 },
    { op: 'encode', profile: 'hurray-elements', tag: 0x49, shape: ['3'], elements: ['5', 'c', '3'], id: 4, case: 'hurray-uint4-3' },
  ]));
  const [block, small, short, data] = replies;
  assert.equal(block.result, 'block');
  const { replies: [decoded] } = exchange(lines([{ op: 'decode', block: block.block, id: 5 }]));
  assert.deepEqual(decoded.tensors[0].shape, [max, '0']);
  assert.equal(small.result, 'block');
  assert.deepEqual({ ...short }, { result: 'reject', class: 'DATA', rule: 'HURRAY-DATA-SHORT', message: short.message, offset: '0', id: 3 });
  assert.deepEqual(data, { result: 'data', data: 'c503', id: 4, case: 'hurray-uint4-3' });
});

test('names that are not UTF-8 arrive as name_hex and layout_hex, and are refused by class', () => {
  const base = { dtype: 5000, shape: [], block_size: 1, payload: '' };
  const { replies } = exchange(lines([
    { op: 'encode', tensors: [{ ...base, name_hex: 'ff', layout: 'L' }], id: 1 },
    { op: 'encode', tensors: [{ ...base, name: 'x', layout_hex: 'c0af' }], id: 2 },
    { op: 'encode', tensors: [{ ...base, name: 'x', layout_hex: '4c' }], id: 3 },
  ]));
  assert.deepEqual(replies.map((r) => [r.result, r.class, r.rule]), [
    ['reject', 'FRAME', 'FRAME-NAME-UTF8'],
    ['reject', 'TYPE', 'TYPE-OPAQUE-LAYOUT-UTF8'],
    ['block', undefined, undefined],
  ]);
});

test('a last line without a newline is answered; no input is a clean exit', () => {
  const { status, replies } = exchange('{"op":"hello","protocol":1,"id":1}');
  assert.equal(status, 0);
  assert.equal(replies.length, 1);
  assert.equal(exchange('').replies.length, 0);
});
