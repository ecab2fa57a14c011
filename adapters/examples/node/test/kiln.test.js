'use strict';
// Unit tests of kiln.js against FORMAT.md: its worked blocks byte for byte,
// rejections by class, rule and offset, and round trips. Run: node --test test/

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const kiln = require('../kiln');

const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// FORMAT.md 3.1, kiln-v2-u4.
const U4_BLOCK = hex(`
  4b 49 4c 4e 02 02 00 00 01 00 00 00 10 00 00 00  80 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00
  08 00 00 00 01 00 00 00 11 00 01 00 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  03 00 00 00 00 00 00 00 78 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  21 03`);

// FORMAT.md 9, kiln-v2-opaque.
const OPAQUE_BLOCK = hex(`
  4b 49 4c 4e 02 02 00 00 01 00 00 00 10 00 00 00  80 00 00 00 00 00 00 00 12 00 00 00 00 00 00 00
  08 00 00 00 01 00 00 00 00 10 01 00 00 00 00 00  09 00 00 00 04 00 00 00 12 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 12 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  20 00 00 00 00 00 00 00 78 51 34 5f 4b 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  10 11`);

// A u8 scalar unless told otherwise.
const tensor = (fields) => ({ name: 'x', dtype: 9, shape: [], layout: null, blockSize: 0, payload: hex('00'), ...fields });

function rejects(fn, rule, offset) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof kiln.KilnError, `not a KilnError: ${error}`);
    assert.equal(error.rule, rule, error.message);
    assert.equal(error.errorClass, rule.split('-')[0]);
    if (offset !== undefined) assert.equal(error.offset, offset, error.message);
    return true;
  });
}

const patched = (block, at, bytes) => {
  const copy = Buffer.from(block);
  Buffer.from(bytes).copy(copy, at);
  return copy;
};

test('the worked block kiln-v2-u4, both ways', () => {
  const block = kiln.encode([tensor({ dtype: 17, shape: [3n], payload: hex('2103') })]);
  assert.equal(block.toString('hex'), U4_BLOCK.toString('hex'));
  assert.deepEqual(kiln.decode(U4_BLOCK), [
    { name: 'x', dtype: 17, shape: [3n], layout: null, blockSize: 0, payload: hex('2103') },
  ]);
});

test('the block with no tensors is 64 bytes (FORMAT.md 2.5)', () => {
  const block = kiln.encode([]);
  assert.equal(block.toString('hex'), `4b494c4e0202${'00'.repeat(10)}40${'00'.repeat(47)}`);
  assert.deepEqual(kiln.decode(block), []);
});

test('the worked block kiln-v2-opaque, both ways', () => {
  const payload = Buffer.from(Array.from({ length: 18 }, (_, i) => i));
  const block = kiln.encode([tensor({ dtype: 4096, shape: [32n], layout: 'Q4_K', blockSize: 18, payload })]);
  assert.equal(block.toString('hex'), OPAQUE_BLOCK.toString('hex'));
  assert.equal(kiln.decode(block)[0].layout, 'Q4_K');
});

test('the seed rejections, by class, rule and offset (FORMAT.md 9)', () => {
  rejects(() => kiln.decode(patched(U4_BLOCK, 129, [0x13])), 'TYPE-HIGH-NIBBLE', 129);
  rejects(() => kiln.decode(patched(U4_BLOCK, 5, [0x00])), 'FRAME-LE-FLAG', 5);
  rejects(() => kiln.encode([tensor({ dtype: 7, shape: [2n], payload: hex('0102') })]), 'TYPE-BOOL-BYTE', 129);
  const noLayout = patched(patched(OPAQUE_BLOCK, 48, Buffer.alloc(8)), 105, Buffer.alloc(4));
  rejects(() => kiln.decode(noLayout), 'TYPE-OPAQUE-LAYOUT', 52);
});

test('the header, field by field', () => {
  rejects(() => kiln.decode(patched(U4_BLOCK, 0, [0x4a])), 'FRAME-MAGIC', 0);
  rejects(() => kiln.decode(patched(U4_BLOCK, 4, [3])), 'FRAME-VERSION', 4);
  rejects(() => kiln.decode(patched(U4_BLOCK, 5, [0x03])), 'FRAME-FLAGS-RESERVED', 5);
  rejects(() => kiln.decode(patched(U4_BLOCK, 7, [1])), 'FRAME-HEADER-RESERVED', 6);
  rejects(() => kiln.decode(patched(U4_BLOCK, 12, [0x11])), 'FRAME-HEAP-ALIGN', 12);
  rejects(() => kiln.decode(patched(U4_BLOCK, 16, [0xc0])), 'FRAME-PAYLOAD-OFFSET', 16);
  // A payload_offset of 2^64 - 64 is compared exactly, not through a double.
  rejects(() => kiln.decode(patched(U4_BLOCK, 16, hex('c0ffffffffffffff'))), 'FRAME-PAYLOAD-OFFSET', 16);
});

test('every cut of a block is FRAME-TRUNCATED at its length, a longer one FRAME-TRAILING', () => {
  for (let size = 0; size < U4_BLOCK.length; size++) {
    // A cut inside the magic that keeps a wrong prefix is still a truncation first.
    rejects(() => kiln.decode(U4_BLOCK.subarray(0, size)), 'FRAME-TRUNCATED', size);
  }
  rejects(() => kiln.decode(Buffer.concat([U4_BLOCK, Buffer.alloc(1)])), 'FRAME-TRAILING', 130);
  // A huge payload_length is a truncation, not a crash or an allocation.
  rejects(() => kiln.decode(patched(U4_BLOCK, 24, hex('ffffffffffffff7f'))), 'FRAME-TRUNCATED', 130);
});

test('entry fields against the canonical placement', () => {
  rejects(() => kiln.decode(patched(U4_BLOCK, 32 + 28, [1])), 'FRAME-ENTRY-RESERVED', 60);
  rejects(() => kiln.decode(patched(U4_BLOCK, 32 + 57, [1])), 'FRAME-ENTRY-RESERVED', 88);
  rejects(() => kiln.decode(patched(U4_BLOCK, 36, [0])), 'FRAME-NAME-EMPTY', 36);
  rejects(() => kiln.decode(patched(U4_BLOCK, 44, [8])), 'FRAME-SHAPE-OFFSET', 44);
  rejects(() => kiln.decode(patched(U4_BLOCK, 32, [9])), 'FRAME-NAME-OFFSET', 32);
  rejects(() => kiln.decode(patched(U4_BLOCK, 48, [9])), 'FRAME-LAYOUT-OFFSET', 48);
  rejects(() => kiln.decode(patched(U4_BLOCK, 36, [9])), 'FRAME-HEAP-LENGTH', 12);
  rejects(() => kiln.decode(patched(U4_BLOCK, 110, [1])), 'FRAME-PAD-HEAP', 110);
  rejects(() => kiln.decode(patched(U4_BLOCK, 104, [0xff])), 'FRAME-NAME-UTF8', 104);
  rejects(() => kiln.decode(patched(U4_BLOCK, 64, [64])), 'FRAME-DATA-OFFSET', 64);
  rejects(() => kiln.decode(patched(U4_BLOCK, 72, [3])), 'FRAME-PAYLOAD-LENGTH', 24);
  rejects(() => kiln.decode(patched(U4_BLOCK, 120, [1])), 'FRAME-PAD-GAP', 120);
});

test('a FRAME defect wins over a TYPE defect', () => {
  const both = patched(patched(U4_BLOCK, 129, [0x13]), 127, [1]);
  rejects(() => kiln.decode(both), 'FRAME-PAD-GAP', 127);
});

test('names: U+0000 is a character, uniqueness is bytewise, order is kept', () => {
  const tensors = [tensor({ name: 'a\u0000b' }), tensor({ name: 'a' }), tensor({ name: 'e\u0301' }), tensor({ name: '\u00e9' })];
  const decoded = kiln.decode(kiln.encode(tensors));
  assert.deepEqual(decoded.map((t) => t.name), ['a\u0000b', 'a', 'e\u0301', '\u00e9']);
  rejects(() => kiln.encode([tensor({ name: 'a' }), tensor({ name: 'b' }), tensor({ name: 'a' })]), 'FRAME-NAME-UNIQUE', 32 + 128);
  rejects(() => kiln.encode([tensor({ name: '' })]), 'FRAME-NAME-EMPTY', 36);
});

test('names that are not UTF-8 are refused by the encoder with the reader\'s rule', () => {
  rejects(() => kiln.encode([tensor({ name: hex('61c080') })]), 'FRAME-NAME-UTF8', 97);
  rejects(() => kiln.encode([tensor({ name: 'a\ud800' })]), 'FRAME-NAME-UTF8', 97);
  rejects(() => kiln.encode([tensor({ dtype: 5000, layout: hex('ff'), blockSize: 1 })]), 'TYPE-OPAQUE-LAYOUT-UTF8', 97);
  // A name defect is FRAME even when the layout name is bad as well.
  rejects(() => kiln.encode([tensor({ name: hex('ff'), dtype: 5000, layout: hex('ff'), blockSize: 1 })]), 'FRAME-NAME-UTF8', 96);
});

test('strict UTF-8: the first byte of the first invalid sequence', () => {
  const cases = [
    ['', -1], ['00', -1], ['7f', -1], ['c280', -1], ['dfbf', -1], ['e0a080', -1], ['ed9fbf', -1],
    ['ee8080', -1], ['f0908080', -1], ['f48fbfbf', -1],
    ['80', 0], ['c080', 0], ['c1bf', 0], ['e08080', 0], ['eda080', 0], ['f08f8080', 0], ['f4908080', 0],
    ['f5808080', 0], ['ff', 0], ['41e282', 1], ['41e28241', 1], ['c2', 0], ['4142c3', 2],
  ];
  for (const [bytes, expected] of cases) assert.equal(kiln.utf8Error(hex(bytes)), expected, bytes);
});

test('dtype codes and the closed dtypes\' fields', () => {
  rejects(() => kiln.encode([tensor({ dtype: 0 })]), 'TYPE-CODE-ZERO', 40);
  rejects(() => kiln.encode([tensor({ dtype: 20 })]), 'TYPE-CODE-RESERVED', 40);
  rejects(() => kiln.encode([tensor({ dtype: 4095 })]), 'TYPE-CODE-RESERVED', 40);
  rejects(() => kiln.encode([tensor({ dtype: 32768 })]), 'TYPE-CODE-ABOVE-OPAQUE', 40);
  rejects(() => kiln.encode([tensor({ layout: 'L', payload: hex('00') })]), 'TYPE-CLOSED-LAYOUT', 52);
  rejects(() => kiln.encode([tensor({ blockSize: 1, payload: hex('00') })]), 'TYPE-CLOSED-BLOCK-SIZE', 56);
  rejects(() => kiln.encode([tensor({ dtype: 2, shape: [1n], payload: hex('000080') })]), 'TYPE-BYTE-LENGTH', 72);
  rejects(() => kiln.encode([tensor({ dtype: 5000, layout: 'L' })]), 'TYPE-OPAQUE-BLOCK-SIZE', 56);
  rejects(() => kiln.encode([tensor({ dtype: 5000, layout: 'L', blockSize: 2, payload: hex('00') })]), 'TYPE-OPAQUE-MULTIPLE', 72);
});

test('shapes: exact products with BigInt, a zero dimension makes n 0', () => {
  const max = kiln.U64_MAX;
  const empty = kiln.encode([tensor({ dtype: 2, shape: [max, 0n, max], payload: Buffer.alloc(0) })]);
  assert.deepEqual(kiln.decode(empty)[0].shape, [max, 0n, max]);
  rejects(() => kiln.encode([tensor({ dtype: 9, shape: [1n << 32n, 1n << 32n] })]), 'TYPE-SHAPE-OVERFLOW', 96);
  // n fits, n x width does not: a byte-length defect, not an overflow.
  rejects(() => kiln.encode([tensor({ dtype: 1, shape: [1n << 62n] })]), 'TYPE-BYTE-LENGTH', 72);
  // Opaque shapes are never multiplied out.
  const opaque = kiln.encode([tensor({ dtype: 4096, shape: [max, max], layout: 'L', blockSize: 1 })]);
  assert.deepEqual(kiln.decode(opaque)[0].shape, [max, max]);
});

test('payload placement: aligned starts, an empty last payload still sits at its place', () => {
  const block = kiln.encode([tensor({ name: 'a', shape: [3n], payload: hex('010203') }), tensor({ name: 'b', shape: [0n], payload: Buffer.alloc(0) })]);
  assert.equal(block.readBigUInt64LE(32 + 64 + 32), 64n);  // data_offset of b
  assert.equal(block.readBigUInt64LE(24), 64n);            // payload_length
  assert.equal(kiln.decode(block).length, 2);
});

test('bits are kept: NaN payloads, -0.0, e8m0 0xff', () => {
  const tensors = [
    tensor({ name: 'nan', dtype: 1, shape: [1n], payload: hex('010000000000f87f') }),
    tensor({ name: 'negzero', dtype: 2, shape: [1n], payload: hex('00000080') }),
    tensor({ name: 'scale', dtype: 19, shape: [1n], payload: hex('ff') }),
  ];
  assert.deepEqual(kiln.decode(kiln.encode(tensors)).map((t) => t.payload.toString('hex')), ['010000000000f87f', '00000080', 'ff']);
});

test('encoder: content no field can hold is FRAME-FIELD-RANGE, never wrapped', () => {
  rejects(() => kiln.encode([tensor({ shape: new Array(65536).fill(0n) })]), 'FRAME-FIELD-RANGE', 0);
  rejects(() => kiln.encode([tensor({ dtype: 65536 })]), 'FRAME-FIELD-RANGE', 0);
  rejects(() => kiln.encode([tensor({ shape: [1n << 64n] })]), 'FRAME-FIELD-RANGE', 0);
  rejects(() => kiln.encode([tensor({ blockSize: 2 ** 32 })]), 'FRAME-FIELD-RANGE', 0);
});

test('the rule IDs this codec reports are FORMAT.md\'s 36', () => {
  const format = fs.readFileSync(path.join(__dirname, '../../../../reference/FORMAT.md'), 'utf8');
  const documented = new Set(format.match(/^\| `((?:FRAME|TYPE)-[A-Z0-9-]+)` \|/gm).map((row) => row.slice(3, -3)));
  assert.equal(documented.size, 36);
  const source = fs.readFileSync(path.join(__dirname, '../kiln.js'), 'utf8');
  const used = new Set(source.match(/'(?:FRAME|TYPE)-[A-Z0-9-]+'/g).map((id) => id.slice(1, -1)));
  for (const id of used) assert.ok(documented.has(id), `${id} is not in FORMAT.md`);
  for (const id of documented) assert.ok(used.has(id), `${id} is never reported`);
});
