'use strict';
// Hurray element types in Node.js: profile hurray-elements.
//
// Written from reference/HURRAY.md, standard library only. The unit is one
// tensor's element layer: a type tag, a shape (BigInt dimensions), a mode and
// the dense data bytes. Elements are bit patterns: unsigned integers of the
// type's width B, as lower-case hex of exactly ceil(B / 4) digits.
//
//   decode(0x49, [3n], 'strict', Buffer.from('c503', 'hex')).elements  // ['5', 'c', '3']
//   encode(0x49, [3n], ['5', 'c', '3']).toString('hex')                 // 'c503'
//   decode(0x47, [1n], 'permissive', Buffer.alloc(0)).opaque            // true
//
// decode() follows HURRAY.md 5.1's check order and stops at the first defect,
// throwing HurrayError (class TAG or DATA, rule ID, offset where 5.2 gives
// one); encode() checks in the order 5.1 gives for encoders.

const { U64_MAX, elementCount } = require('./kiln');

const STRICT = 'strict';
const PERMISSIVE = 'permissive';

// ---- The type table (HURRAY.md 3.2): the one place tags live ----

const TYPES = [
  [0x01, 'float16', 1, 16], [0x02, 'bfloat16', 1, 16],
  [0x03, 'float32', 1, 32], [0x04, 'float64', 1, 64],
  // Tags 0x10..0x31 and 0x48..0x4B are the brief's assumptions (HURRAY.md 3.2).
  [0x10, 'int8', 1, 8], [0x11, 'uint8', 1, 8], [0x12, 'int16', 1, 16], [0x13, 'uint16', 1, 16],
  [0x14, 'int32', 1, 32], [0x15, 'uint32', 1, 32], [0x16, 'int64', 1, 64], [0x17, 'uint64', 1, 64],
  [0x20, 'bool', 1, 1], [0x30, 'complex64', 1, 64], [0x31, 'complex128', 1, 128],
  [0x40, 'float8_e4m3', 2, 8], [0x41, 'float8_e5m2', 2, 8], [0x42, 'float8_e8m0', 2, 8],
  [0x43, 'float4_e2m1', 2, 4], [0x44, 'float6_e2m3', 2, 6], [0x45, 'float6_e3m2', 2, 6],
  [0x46, 'float128', 2, 128],
  // 0x47 is reserved by the seed: absent from the table, so never recognized.
  [0x48, 'int4', 2, 4], [0x49, 'uint4', 2, 4], [0x4a, 'int2', 2, 2], [0x4b, 'uint2', 2, 2],
].map(([tag, name, tier, bits]) => Object.freeze({ tag, name, tier, bits, digits: Math.ceil(bits / 4) }));
const TYPES_BY_TAG = new Map(TYPES.map((t) => [t.tag, t]));
const TIER2_NAMES = TYPES.filter((t) => t.tier === 2).map((t) => t.name);
const E8M0 = 'float8_e8m0';

// ---- Rules (HURRAY.md 5.2) ----

const RULES = {
  'HURRAY-TAG-ZERO-FF': 'TAG',
  'HURRAY-TAG-UNRECOGNIZED': 'TAG',
  'HURRAY-COUNT-OVERFLOW': 'DATA',
  'HURRAY-SIZE-OVERFLOW': 'DATA',
  'HURRAY-DATA-SHORT': 'DATA',
  'HURRAY-PAD-BOOL': 'DATA',
  'HURRAY-PAD-2BIT': 'DATA',
  'HURRAY-PAD-4BIT': 'DATA',
  'HURRAY-PAD-6BIT': 'DATA',
  'HURRAY-E8M0-RESERVED': 'DATA',
  'HURRAY-ENC-COUNT': 'DATA',
  'HURRAY-ENC-RANGE': 'DATA',
};
const PAD_RULE = { 1: 'HURRAY-PAD-BOOL', 2: 'HURRAY-PAD-2BIT', 4: 'HURRAY-PAD-4BIT', 6: 'HURRAY-PAD-6BIT' };

class HurrayError extends Error {
  // offset: a byte of the data (decoder), an element's index (encoder), or
  // null for the rules 5.2 gives no offset.
  constructor(rule, message, offset = null) {
    super(message);
    this.name = 'HurrayError';
    this.rule = rule;
    this.errorClass = RULES[rule];
    this.offset = offset;
  }
}

// ---- Sizes (HURRAY.md 4) ----

// Sub-byte packing unit: elements per unit and bytes per unit. Read as a
// little-endian integer, a unit holds element j at bits B*j .. B*j + B - 1.
const unitOf = (bits) => (bits === 6 ? { per: 4, bytes: 3 } : { per: 8 / bits, bytes: 1 });

// S for N elements (BigInt): ceil(N / 4) * 3 for 6-bit types, never N * 6 / 8.
function dataSize(type, n) {
  if (type.bits % 8 === 0) return n * BigInt(type.bits / 8);
  const { per, bytes } = unitOf(type.bits);
  return (n + BigInt(per - 1)) / BigInt(per) * BigInt(bytes);
}

// A value for a message, cut short: shapes and elements can be huge.
function brief(value, limit = 64) {
  const text = String(value);
  return text.length <= limit ? text : `${text.slice(0, limit)}... (${text.length} characters)`;
}

// Steps 1 to 4's tag and overflow checks, shared by decode and encode.
// Returns { type, n, s }, or null for a tag permissive mode leaves opaque.
function sized(tag, dims, supported, mode) {
  if (tag === 0x00 || tag === 0xff) {
    throw new HurrayError('HURRAY-TAG-ZERO-FF', `type tag 0x${tag.toString(16).padStart(2, '0')} is never valid`);
  }
  const known = TYPES_BY_TAG.get(tag);
  // An unsupported Tier 2 type is handled exactly like an unknown tag (HURRAY.md 2).
  if (!known || (known.tier === 2 && !supported.has(known.name))) {
    if (mode === PERMISSIVE) return null;
    const why = known ? `Tier 2 type ${known.name} is not supported` : 'the tag is not recognized';
    throw new HurrayError('HURRAY-TAG-UNRECOGNIZED', `type tag 0x${tag.toString(16).padStart(2, '0')}: ${why}`);
  }
  const n = elementCount(dims);
  if (n > U64_MAX) throw new HurrayError('HURRAY-COUNT-OVERFLOW', `the element count of shape [${brief(dims.join(','))}] exceeds 2^64-1`);
  const s = dataSize(known, n);
  if (s > U64_MAX) throw new HurrayError('HURRAY-SIZE-OVERFLOW', `${n} ${known.name} elements need ${s} bytes, more than 2^64-1`);
  return { type: known, n, s };
}

function checkArguments(tag, dims, supportedTier2) {
  if (!Number.isInteger(tag) || tag < 0 || tag > 0xff) throw new TypeError(`tag must be an integer 0..255, not ${tag}`);
  dims.forEach((d, i) => {
    if (typeof d !== 'bigint' || d < 0n || d > U64_MAX) throw new TypeError(`shape[${i}] must be a BigInt 0..2^64-1`);
  });
  const supported = new Set(supportedTier2 ?? TIER2_NAMES);
  for (const name of supported) {
    if (!TIER2_NAMES.includes(name)) throw new TypeError(`${name} is not a Tier 2 type`);
  }
  return supported;
}

// ---- Decoding ----

const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

// decode(tag, shape, mode, data, supportedTier2): supportedTier2 names the
// Tier 2 types to recognize (default: all). Returns { opaque: true } or
// { opaque: false, type, elements, extraBytes }. Nothing in proportion to N
// or S is allocated before the data is known to hold S bytes.
function decode(tag, shape, mode = STRICT, data = Buffer.alloc(0), supportedTier2 = TIER2_NAMES) {
  const dims = Array.from(shape);
  const supported = checkArguments(tag, dims, supportedTier2);
  if (mode !== STRICT && mode !== PERMISSIVE) throw new TypeError(`mode must be strict or permissive, not ${mode}`);
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);

  const found = sized(tag, dims, supported, mode);
  if (!found) return { opaque: true };
  const { type, n, s } = found;
  if (BigInt(bytes.length) < s) {
    throw new HurrayError('HURRAY-DATA-SHORT', `${n} ${type.name} elements need ${s} bytes, the data holds ${bytes.length}`, bytes.length);
  }
  // S fits in a Number now: it is at most the data's length. Bytes after it
  // are not examined (HURRAY.md 6.2).
  const size = Number(s);
  const count = Number(n);
  const body = bytes.subarray(0, size);
  if (type.bits % 8) checkPadding(type, count, body);
  if (type.name === E8M0) {
    const bad = body.findIndex((b) => b === 0x00 || b === 0xff);
    if (bad >= 0) throw new HurrayError('HURRAY-E8M0-RESERVED', `float8_e8m0 element ${bad} is the reserved pattern ${BYTE_HEX[body[bad]]}`, bad);
  }
  return { opaque: false, type, elements: unpack(type, count, body), extraBytes: bytes.length - size };
}

// The unused high bits of the last unit are padding and must be zero; the
// offset is the first byte of that unit holding a set bit.
function checkPadding(type, n, body) {
  const { per, bytes } = unitOf(type.bits);
  const used = n % per;
  if (used === 0) return;
  const start = body.length - bytes;
  let unit = 0;
  for (let k = 0; k < bytes; k++) unit |= body[start + k] << (8 * k);
  const stray = unit & ~((1 << (type.bits * used)) - 1);
  if (stray) {
    let k = 0;
    while (!((stray >> (8 * k)) & 0xff)) k++;
    throw new HurrayError(PAD_RULE[type.bits],
      `${type.name}: padding bits after element ${n - 1} are not zero (byte 0x${BYTE_HEX[body[start + k]]})`, start + k);
  }
}

function unpack(type, n, body) {
  const elements = new Array(n);
  if (type.bits % 8 === 0) {
    // Little-endian: an element's last byte is its most significant digit pair.
    const width = type.bits / 8;
    for (let i = 0, at = 0; i < n; i++, at += width) {
      let text = '';
      for (let k = width - 1; k >= 0; k--) text += BYTE_HEX[body[at + k]];
      elements[i] = text;
    }
    return elements;
  }
  const { per, bytes } = unitOf(type.bits);
  const mask = (1 << type.bits) - 1;
  for (let i = 0; i < n; i++) {
    const at = Math.floor(i / per) * bytes;
    let unit = 0;
    for (let k = 0; k < bytes; k++) unit |= body[at + k] << (8 * k);
    const value = (unit >> (type.bits * (i % per))) & mask;
    elements[i] = value.toString(16).padStart(type.digits, '0');
  }
  return elements;
}

// ---- Encoding ----

const HEX_ELEMENT = /^[0-9a-fA-F]+$/;

// encode(tag, shape, elements, supportedTier2): packs N element bit patterns
// (hex strings, either case, any number of digits: judged by value) into
// exactly S bytes with zero padding bits. An element that is not a hex string
// is the caller's error (TypeError), checked before any rule.
function encode(tag, shape, elements, supportedTier2 = TIER2_NAMES) {
  const dims = Array.from(shape);
  const supported = checkArguments(tag, dims, supportedTier2);
  if (!Array.isArray(elements)) throw new TypeError('elements must be an array of hex strings');
  elements.forEach((e, i) => {
    if (typeof e !== 'string' || !HEX_ELEMENT.test(e)) throw new TypeError(`elements[${i}] is not a hex string: ${brief(JSON.stringify(e))}`);
  });

  const { type, n, s } = sized(tag, dims, supported, STRICT);  // an encoder has no mode
  if (BigInt(elements.length) !== n) {
    throw new HurrayError('HURRAY-ENC-COUNT', `shape [${brief(dims.join(','))}] holds ${n} elements, ${elements.length} were given`);
  }
  const out = Buffer.alloc(Number(s));  // zero, so padding bits are zero
  const width = type.bits / 8;
  const { per, bytes } = unitOf(type.bits);
  elements.forEach((e, i) => {
    // The value without leading zeros; more digits than ceil(B / 4) never fit,
    // and for B = 1, 2, 6 the top digit must be small enough too.
    const digits = e.replace(/^0+/, '').toLowerCase();
    const fits = digits.length < type.digits ||
      (digits.length === type.digits && (type.bits % 4 === 0 || parseInt(digits, 16) < 2 ** type.bits));
    if (!fits) throw new HurrayError('HURRAY-ENC-RANGE', `elements[${i}] = ${brief(e)} does not fit the ${type.bits} bits of ${type.name}`, i);
    const padded = digits.padStart(type.digits, '0');
    if (type.name === E8M0 && (padded === '00' || padded === 'ff')) {
      throw new HurrayError('HURRAY-E8M0-RESERVED', `elements[${i}] = ${brief(e)} is a reserved float8_e8m0 pattern`, i);
    }
    if (type.bits % 8 === 0) {
      // Whole bytes, least significant first: the hex read from its end.
      for (let k = 0; k < width; k++) {
        const pair = padded.length - 2 * (k + 1);
        out[i * width + k] = parseInt(padded.slice(pair, pair + 2), 16);
      }
    } else {
      const bit = type.bits * (i % per);
      const value = parseInt(padded, 16) << bit;
      const at = Math.floor(i / per) * bytes;
      for (let k = 0; k < bytes; k++) out[at + k] |= (value >> (8 * k)) & 0xff;
    }
  });
  return out;
}

module.exports = {
  STRICT, PERMISSIVE, TYPES, TYPES_BY_TAG, TIER2_NAMES, RULES, HurrayError, dataSize, decode, encode,
};
