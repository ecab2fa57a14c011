'use strict';
// Unit tests of hurray.js against HURRAY.md: the worked examples both ways,
// every rule, the check order, round trips of every type. Run: node --test test/

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const hurray = require('../hurray');
const { U64_MAX } = require('../kiln');

const hex = (text) => Buffer.from(text, 'hex');
const tagOf = (name) => hurray.TYPES.find((t) => t.name === name).tag;

function rejects(fn, rule, offset = null) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof hurray.HurrayError, `not a HurrayError: ${error}`);
    assert.equal(error.rule, rule, error.message);
    assert.equal(error.errorClass, hurray.RULES[rule]);
    assert.equal(error.offset, offset, error.message);
    return true;
  });
}

test('the worked examples of HURRAY.md 7, both ways', () => {
  const examples = [
    ['bool', [5n], ['1', '0', '1', '1', '0'], '0d'],
    ['uint4', [3n], ['5', 'c', '3'], 'c503'],
    ['uint2', [3n], ['3', '1', '2'], '27'],
    ['float6_e2m3', [4n], ['01', '02', '04', '08'], '814020'],
    ['complex64', [1n], ['400000003f800000'], '0000803f00000040'],
  ];
  for (const [name, shape, elements, data] of examples) {
    assert.deepEqual(hurray.decode(tagOf(name), shape, 'strict', hex(data)).elements, elements, name);
    assert.equal(hurray.encode(tagOf(name), shape, elements).toString('hex'), data, name);
  }
});

test('tags: 0x00 and 0xff in both modes, 0x47 and the unrecognized ranges', () => {
  for (const mode of ['strict', 'permissive']) {
    rejects(() => hurray.decode(0x00, [1n], mode, hex('00')), 'HURRAY-TAG-ZERO-FF');
    rejects(() => hurray.decode(0xff, [1n], mode, hex('00')), 'HURRAY-TAG-ZERO-FF');
  }
  for (const tag of [0x05, 0x3f, 0x47, 0x4c, 0x7f, 0x80, 0xef, 0xf0, 0xfe]) {
    rejects(() => hurray.decode(tag, [1n], 'strict', hex('00')), 'HURRAY-TAG-UNRECOGNIZED');
    assert.deepEqual(hurray.decode(tag, [1n], 'permissive', Buffer.alloc(0)), { opaque: true });
    rejects(() => hurray.encode(tag, [1n], ['0']), 'HURRAY-TAG-UNRECOGNIZED');
  }
});

test('a Tier 2 type that is not supported is handled as an unknown tag', () => {
  const tag = tagOf('int4');
  rejects(() => hurray.decode(tag, [1n], 'strict', hex('01'), []), 'HURRAY-TAG-UNRECOGNIZED');
  assert.equal(hurray.decode(tag, [1n], 'permissive', hex('01'), []).opaque, true);
  assert.deepEqual(hurray.decode(tag, [1n], 'strict', hex('01'), ['int4']).elements, ['1']);
  // Tier 1 needs no support list.
  assert.deepEqual(hurray.decode(tagOf('uint8'), [1n], 'strict', hex('07'), []).elements, ['07']);
});

test('sizes: exact N and S, overflow, a zero dimension, a short buffer', () => {
  rejects(() => hurray.decode(tagOf('uint8'), [1n << 32n, 1n << 32n], 'strict', Buffer.alloc(0)), 'HURRAY-COUNT-OVERFLOW');
  rejects(() => hurray.decode(tagOf('bfloat16'), [(1n << 63n) + 1n], 'strict', hex('0000')), 'HURRAY-SIZE-OVERFLOW');
  rejects(() => hurray.decode(tagOf('complex128'), [1n << 60n], 'strict', Buffer.alloc(0)), 'HURRAY-SIZE-OVERFLOW');
  // 6-bit S is ceil(N / 4) * 3, computed without wrapping: 3 * 2^62 here.
  const float6 = hurray.TYPES_BY_TAG.get(tagOf('float6_e2m3'));
  assert.equal(hurray.dataSize(float6, U64_MAX), 3n << 62n);
  rejects(() => hurray.decode(float6.tag, [U64_MAX], 'strict', Buffer.alloc(0)), 'HURRAY-DATA-SHORT', 0);
  assert.deepEqual(hurray.decode(tagOf('float64'), [U64_MAX, 0n, U64_MAX], 'strict', Buffer.alloc(0)).elements, []);
  rejects(() => hurray.decode(tagOf('bool'), [U64_MAX], 'strict', Buffer.alloc(3)), 'HURRAY-DATA-SHORT', 3);
  rejects(() => hurray.decode(tagOf('float32'), [2n], 'strict', hex('00000000000000')), 'HURRAY-DATA-SHORT', 7);
  assert.equal(hurray.decode(tagOf('float6_e3m2'), [], 'strict', hex('3f0000')).elements[0], '3f');
  assert.equal(hurray.dataSize(hurray.TYPES_BY_TAG.get(tagOf('float6_e3m2')), 5n), 6n);
});

test('padding bits, every width, with the reference\'s offsets', () => {
  rejects(() => hurray.decode(tagOf('bool'), [5n], 'strict', hex('2d')), 'HURRAY-PAD-BOOL', 0);
  rejects(() => hurray.decode(tagOf('bool'), [9n], 'strict', hex('ff03')), 'HURRAY-PAD-BOOL', 1);
  rejects(() => hurray.decode(tagOf('uint2'), [3n], 'strict', hex('67')), 'HURRAY-PAD-2BIT', 0);
  rejects(() => hurray.decode(tagOf('int4'), [3n], 'strict', hex('c513')), 'HURRAY-PAD-4BIT', 1);
  rejects(() => hurray.decode(tagOf('float4_e2m1'), [1n], 'strict', hex('10')), 'HURRAY-PAD-4BIT', 0);
  // 6-bit: the first byte of the final group with a set padding bit.
  rejects(() => hurray.decode(tagOf('float6_e2m3'), [1n], 'strict', hex('400000')), 'HURRAY-PAD-6BIT', 0);
  rejects(() => hurray.decode(tagOf('float6_e2m3'), [1n], 'strict', hex('000100')), 'HURRAY-PAD-6BIT', 1);
  rejects(() => hurray.decode(tagOf('float6_e2m3'), [6n], 'strict', hex('000000000080')), 'HURRAY-PAD-6BIT', 5);
  // Bytes after S are not examined (HURRAY.md 6.2).
  const decoded = hurray.decode(tagOf('bool'), [5n], 'strict', hex('0dff'));
  assert.equal(decoded.extraBytes, 1);
});

test('float8_e8m0 reserves 0x00 and 0xff, decoder and encoder', () => {
  const tag = tagOf('float8_e8m0');
  rejects(() => hurray.decode(tag, [1n], 'strict', hex('00')), 'HURRAY-E8M0-RESERVED', 0);
  rejects(() => hurray.decode(tag, [3n], 'strict', hex('7fff00')), 'HURRAY-E8M0-RESERVED', 1);
  rejects(() => hurray.encode(tag, [2n], ['7f', 'FF']), 'HURRAY-E8M0-RESERVED', 1);
  assert.equal(hurray.encode(tag, [2n], ['01', 'fe']).toString('hex'), '01fe');
  // Other f8 types keep every pattern.
  assert.deepEqual(hurray.decode(tagOf('float8_e4m3'), [2n], 'strict', hex('00ff')).elements, ['00', 'ff']);
});

test('encoder: count, range by value, order of checks', () => {
  const uint4 = tagOf('uint4');
  rejects(() => hurray.encode(uint4, [3n], ['1', '2']), 'HURRAY-ENC-COUNT');
  rejects(() => hurray.encode(uint4, [2n], ['1', '10']), 'HURRAY-ENC-RANGE', 1);
  assert.equal(hurray.encode(uint4, [2n], ['000f', 'A']).toString('hex'), 'af');
  rejects(() => hurray.encode(tagOf('bool'), [1n], ['2']), 'HURRAY-ENC-RANGE', 0);
  rejects(() => hurray.encode(tagOf('float6_e2m3'), [1n], ['40']), 'HURRAY-ENC-RANGE', 0);
  rejects(() => hurray.encode(tagOf('float128'), [1n], ['1'.padEnd(33, '0')]), 'HURRAY-ENC-RANGE', 0);
  // Range before e8m0, element by element.
  rejects(() => hurray.encode(tagOf('float8_e8m0'), [2n], ['00', '100']), 'HURRAY-E8M0-RESERVED', 0);
  // Overflow before count; a bad hex element is the caller's error, before anything.
  rejects(() => hurray.encode(tagOf('uint8'), [1n << 32n, 1n << 32n], []), 'HURRAY-COUNT-OVERFLOW');
  assert.throws(() => hurray.encode(0, [1n], ['g']), TypeError);
});

test('every type round-trips for every remainder of N', () => {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (const type of hurray.TYPES) {
    for (let n = 0; n <= 9; n++) {
      const elements = Array.from({ length: n }, () => {
        let text = '';
        for (let d = 0; d < type.digits; d++) text += (random() % 16).toString(16);
        let value = BigInt(`0x${text}`) % (1n << BigInt(type.bits));
        if (type.name === 'float8_e8m0' && (value === 0n || value === 255n)) value = 1n;
        return value.toString(16).padStart(type.digits, '0');
      });
      const data = hurray.encode(type.tag, [BigInt(n)], elements);
      assert.equal(BigInt(data.length), hurray.dataSize(type, BigInt(n)), `${type.name} ${n}`);
      assert.deepEqual(hurray.decode(type.tag, [BigInt(n)], 'strict', data).elements, elements, `${type.name} ${n}`);
    }
  }
});

test('the type table and the rules are HURRAY.md\'s', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../../../reference/HURRAY.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| 0x([0-9A-F]{2}) \| (\w+) \| ([12]) \| (\d+) \|/gm)];
  assert.deepEqual(rows.map((r) => [parseInt(r[1], 16), r[2], Number(r[3]), Number(r[4])]),
    hurray.TYPES.map((t) => [t.tag, t.name, t.tier, t.bits]));
  const rules = [...doc.matchAll(/^\| `(HURRAY-[A-Z0-9-]+)` \| (TAG|DATA) \|/gm)].map((r) => [r[1], r[2]]);
  assert.deepEqual(rules, Object.entries(hurray.RULES));
});
