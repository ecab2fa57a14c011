'use strict';
// Kiln v2 in Node.js: a strict reader and a canonical writer.
//
// Written from reference/FORMAT.md, standard library only. decode() returns
// the tensors of a valid block or throws KilnError; encode() writes the one
// canonical block (FORMAT.md 3) and throws KilnError for content a reader
// would reject, because it reads its own block back (FORMAT.md 8).
//
//   const block = encode([{ name: 'x', dtype: 17, shape: [3n], payload: Buffer.from('2103', 'hex') }]);
//   block.length                                   // 130
//   decode(block)[0].payload.toString('hex')        // '2103'
//
// A tensor is { name, dtype, shape, layout, blockSize, payload }: shape is an
// array of BigInt (dimensions go up to 2^64 - 1, past what a Number holds
// exactly), layout a string or null, payload a Buffer of the stored bytes.

const VERSION = '0.1.0';

const MAGIC = Buffer.from('KILN', 'latin1');
const BLOCK_VERSION = 2;
const FLAG_LITTLE_ENDIAN = 0x02;
const HEADER_SIZE = 32;
const ENTRY_SIZE = 64;

const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
const U64_MAX = (1n << 64n) - 1n;

// ---- Dtypes (FORMAT.md 4) ----

// Closed dtypes by code: bytes per element, or packed for nibble streams.
const DTYPES = new Map([
  [1, { name: 'f64', width: 8 }], [2, { name: 'f32', width: 4 }],
  [3, { name: 'f16', width: 2 }], [4, { name: 'bf16', width: 2 }],
  [5, { name: 'f8e4m3', width: 1 }], [6, { name: 'f8e5m2', width: 1 }],
  [7, { name: 'bool', width: 1 }], [8, { name: 'i8', width: 1 }], [9, { name: 'u8', width: 1 }],
  [10, { name: 'i16', width: 2 }], [11, { name: 'u16', width: 2 }],
  [12, { name: 'i32', width: 4 }], [13, { name: 'u32', width: 4 }],
  [14, { name: 'i64', width: 8 }], [15, { name: 'u64', width: 8 }],
  [16, { name: 'i4', packed: true }], [17, { name: 'u4', packed: true }],
  [18, { name: 'e2m1', packed: true }], [19, { name: 'e8m0', width: 1 }],
]);
const BOOL = 7;
const OPAQUE_FIRST = 4096;
const OPAQUE_LAST = 32767;

const isOpaque = (code) => code >= OPAQUE_FIRST && code <= OPAQUE_LAST;

// ---- Errors ----

class KilnError extends Error {
  // rule is a FORMAT.md 5 ID; its first word is the class, FRAME or TYPE.
  // offset is the absolute byte offset the reference reports for it.
  constructor(rule, offset, message) {
    super(`${message} (${rule} at byte ${offset})`);
    this.name = 'KilnError';
    this.rule = rule;
    this.errorClass = rule.split('-')[0];
    this.offset = offset;
    this.detail = message;
  }
}

// ---- Small helpers ----

const align8 = (x) => Math.ceil(x / 8) * 8;
const align64 = (x) => Math.ceil(x / 64) * 64;
const align64n = (x) => (x + 63n) / 64n * 64n;

// Index of the first nonzero byte in bytes[start, end), or -1.
function firstNonzero(bytes, start, end) {
  for (let i = start; i < end; i++) if (bytes[i] !== 0) return i;
  return -1;
}

// Strict UTF-8 (RFC 3629): the index of the first byte of the first invalid
// sequence, or -1. Overlong forms, encoded surrogates, scalars above U+10FFFF
// and cut sequences are all invalid; U+0000 is valid. Node's own decoders
// replace bad bytes instead of reporting where they are, hence this check.
function utf8Error(bytes, start = 0, end = bytes.length) {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) { i++; continue; }
    let length;
    let low = 0x80;   // the range of the second byte, which rules out
    let high = 0xbf;  // overlong forms, surrogates and scalars past U+10FFFF
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > end) return i;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += length;
  }
  return -1;
}

// The exact product of the dimensions, as BigInt. Any zero makes it 0 however
// large the rest; otherwise it stops once past U64_MAX, since callers only
// compare it with U64_MAX (a long shape of huge dimensions must not build a
// huge number). hurray.js counts its elements with it too.
function elementCount(dims) {
  if (dims.some((d) => d === 0n)) return 0n;
  let n = 1n;
  for (const d of dims) {
    n *= d;
    if (n > U64_MAX) break;
  }
  return n;
}

// The bytes a name or layout name is stored as. A string with a lone
// surrogate (possible from JSON "\ud800") keeps it as its invalid 3-byte form,
// so that the read-back refuses it instead of Buffer.from silently writing
// U+FFFD in its place.
function textBytes(text) {
  if (text === null || text === undefined) return Buffer.alloc(0);
  if (typeof text !== 'string') return Buffer.from(text);
  if (!/[\ud800-\udfff]/.test(text)) return Buffer.from(text, 'utf8');
  const out = [];
  for (const ch of text) {  // iterates code points; a lone surrogate is one
    const cp = ch.codePointAt(0);
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return Buffer.from(out);
}

// ---- Decoder (FORMAT.md 5.2, in its check order) ----

function decode(input) {
  const block = Buffer.isBuffer(input) ? input : Buffer.from(input);
  const entries = checkFrame(block);
  checkTypes(block, entries);
  return entries.map((e) => ({
    name: e.name.toString('utf8'),
    dtype: e.dtype,
    shape: e.dims,
    layout: e.layout.length ? e.layout.toString('utf8') : null,
    blockSize: e.blockSize,
    payload: Buffer.from(block.subarray(e.payloadAt, e.payloadAt + e.byteLength)),
  }));
}

// The FRAME checks. Returns each entry's fields and where its heap contents
// and payload lie. u64 fields are read as BigInt and turned into Numbers only
// once they are known to lie inside the input.
function checkFrame(block) {
  const size = block.length;

  // 1. The header, field by field, as far as the input reaches.
  if (size < 4) throw new KilnError('FRAME-TRUNCATED', size, `${size} bytes cannot hold the magic`);
  if (!block.subarray(0, 4).equals(MAGIC)) {
    throw new KilnError('FRAME-MAGIC', 0, `magic is ${block.subarray(0, 4).toString('hex')}, not 4b494c4e ("KILN")`);
  }
  if (size < 5) throw new KilnError('FRAME-TRUNCATED', size, 'the input ends before the version byte');
  if (block[4] !== BLOCK_VERSION) throw new KilnError('FRAME-VERSION', 4, `version is ${block[4]}, not 2`);
  if (size < 6) throw new KilnError('FRAME-TRUNCATED', size, 'the input ends before the flags byte');
  const flags = block[5];
  if (!(flags & FLAG_LITTLE_ENDIAN)) {
    throw new KilnError('FRAME-LE-FLAG', 5, `flags 0x${hex2(flags)}: the little-endian bit 0x02 is clear`);
  }
  if (flags & ~FLAG_LITTLE_ENDIAN) {
    throw new KilnError('FRAME-FLAGS-RESERVED', 5, `flags 0x${hex2(flags)}: a reserved bit is set`);
  }
  if (size < HEADER_SIZE) {
    throw new KilnError('FRAME-TRUNCATED', size, `${size} bytes cannot hold the 32-byte header`);
  }
  if (block.readUInt16LE(6) !== 0) throw new KilnError('FRAME-HEADER-RESERVED', 6, 'header bytes 6..7 are not zero');
  const tensorCount = block.readUInt32LE(8);
  const heapLength = block.readUInt32LE(12);
  const payloadOffset = block.readBigUInt64LE(16);
  const payloadLength = block.readBigUInt64LE(24);
  if (heapLength % 8) throw new KilnError('FRAME-HEAP-ALIGN', 12, `heap_length ${heapLength} is not a multiple of 8`);

  // 2. payload_offset follows from the header alone. These sums stay below
  // 2^39, well inside a Number's exact range.
  const heapStart = HEADER_SIZE + ENTRY_SIZE * tensorCount;
  const heapEnd = heapStart + heapLength;
  const expectedPayloadOffset = align64(heapEnd);
  if (payloadOffset !== BigInt(expectedPayloadOffset)) {
    throw new KilnError('FRAME-PAYLOAD-OFFSET', 16, `payload_offset ${payloadOffset}, expected ${expectedPayloadOffset}`);
  }

  // 3. The block's length. From here on every byte the header promises exists,
  // so the u64 fields fit in Numbers.
  const blockEnd = payloadOffset + payloadLength;
  if (BigInt(size) < payloadOffset) {
    throw new KilnError('FRAME-TRUNCATED', size, `the input ends at ${size}, before payload_offset ${payloadOffset}`);
  }
  if (BigInt(size) < blockEnd) {
    throw new KilnError('FRAME-TRUNCATED', size, `the input ends at ${size}, before the payload region's end ${blockEnd}`);
  }
  if (BigInt(size) > blockEnd) {
    throw new KilnError('FRAME-TRAILING', Number(blockEnd), `${BigInt(size) - blockEnd} bytes follow the payload region's end ${blockEnd}`);
  }
  const payloadStart = Number(payloadOffset);
  const payloadRegion = Number(payloadLength);

  // 4. Each entry against its canonical heap segment and payload position.
  const entries = [];
  const names = new Set();  // latin1 strings: one char per byte, so compared bytewise
  let heapCursor = 0;     // heap-relative start of the next canonical segment
  let payloadCursor = 0;  // payload-relative end of the previous payload
  for (let index = 0; index < tensorCount; index++) {
    const at = HEADER_SIZE + ENTRY_SIZE * index;
    const where = `tensor ${index}`;
    const nameOffset = block.readUInt32LE(at);
    const nameLength = block.readUInt32LE(at + 4);
    const dtype = block.readUInt16LE(at + 8);
    const rank = block.readUInt16LE(at + 10);
    const shapeOffset = block.readUInt32LE(at + 12);
    const layoutOffset = block.readUInt32LE(at + 16);
    const layoutLength = block.readUInt32LE(at + 20);
    const blockSize = block.readUInt32LE(at + 24);
    const dataOffset = block.readBigUInt64LE(at + 32);
    const byteLength = block.readBigUInt64LE(at + 40);

    // Reserved: bytes 28..31, then 48..55, then 56..63, reported at the first
    // field that is not zero.
    for (const [offset, length] of [[28, 4], [48, 8], [56, 8]]) {
      if (firstNonzero(block, at + offset, at + offset + length) >= 0) {
        throw new KilnError('FRAME-ENTRY-RESERVED', at + offset, `${where}: reserved entry bytes at +${offset} are not zero`);
      }
    }
    if (nameLength === 0) throw new KilnError('FRAME-NAME-EMPTY', at + 4, `${where}: the name is empty`);
    if (shapeOffset !== heapCursor) {
      throw new KilnError('FRAME-SHAPE-OFFSET', at + 12, `${where}: shape_offset ${shapeOffset}, expected ${heapCursor}`);
    }
    if (nameOffset !== shapeOffset + 8 * rank) {
      throw new KilnError('FRAME-NAME-OFFSET', at, `${where}: name_offset ${nameOffset}, expected ${shapeOffset + 8 * rank}`);
    }
    const expectedLayoutOffset = layoutLength > 0 ? nameOffset + nameLength : 0;
    if (layoutOffset !== expectedLayoutOffset) {
      throw new KilnError('FRAME-LAYOUT-OFFSET', at + 16, `${where}: layout_offset ${layoutOffset}, expected ${expectedLayoutOffset}`);
    }
    const contentEnd = nameOffset + nameLength + layoutLength;
    const segmentEnd = align8(contentEnd);
    if (segmentEnd > heapLength) {
      throw new KilnError('FRAME-HEAP-LENGTH', 12, `${where}: the heap segment ends at ${segmentEnd}, past heap_length ${heapLength}`);
    }
    const badPad = firstNonzero(block, heapStart + contentEnd, heapStart + segmentEnd);
    if (badPad >= 0) throw new KilnError('FRAME-PAD-HEAP', badPad, `${where}: heap padding byte is not zero`);
    const nameAt = heapStart + nameOffset;
    const name = block.subarray(nameAt, nameAt + nameLength);
    const badName = utf8Error(name);
    if (badName >= 0) throw new KilnError('FRAME-NAME-UTF8', nameAt + badName, `${where}: the name is not strict UTF-8`);
    const key = name.toString('latin1');
    if (names.has(key)) throw new KilnError('FRAME-NAME-UNIQUE', at, `${where}: the name ${JSON.stringify(name.toString('utf8'))} is already used`);
    names.add(key);
    const expectedDataOffset = align64(payloadCursor);  // 0 for the first tensor
    if (dataOffset !== BigInt(expectedDataOffset)) {
      throw new KilnError('FRAME-DATA-OFFSET', at + 32, `${where}: data_offset ${dataOffset}, expected ${expectedDataOffset}`);
    }
    if (dataOffset + byteLength > payloadLength) {
      throw new KilnError('FRAME-PAYLOAD-LENGTH', 24,
        `${where}: the payload ends at ${dataOffset + byteLength}, past payload_length ${payloadLength}`);
    }
    const badGap = firstNonzero(block, payloadStart + payloadCursor, payloadStart + expectedDataOffset);
    if (badGap >= 0) throw new KilnError('FRAME-PAD-PAYLOAD', badGap, `${where}: padding before the payload is not zero`);

    const dims = [];
    for (let k = 0; k < rank; k++) dims.push(block.readBigUInt64LE(heapStart + shapeOffset + 8 * k));
    const layoutAt = heapStart + layoutOffset;
    entries.push({
      at, dtype, dims, blockSize, name, shapeAt: heapStart + shapeOffset,
      layout: layoutLength ? block.subarray(layoutAt, layoutAt + layoutLength) : Buffer.alloc(0),
      layoutAt,
      payloadAt: payloadStart + expectedDataOffset,
      byteLength: Number(byteLength),
    });
    heapCursor = segmentEnd;
    payloadCursor = expectedDataOffset + Number(byteLength);
  }

  // 5. Totals: no spare heap, a zero gap, no spare payload.
  if (heapCursor !== heapLength) {
    throw new KilnError('FRAME-HEAP-LENGTH', 12, `heap_length ${heapLength}, but the heap segments end at ${heapCursor}`);
  }
  const badGap = firstNonzero(block, heapEnd, payloadStart);
  if (badGap >= 0) throw new KilnError('FRAME-PAD-GAP', badGap, 'the gap before payload_offset is not zero');
  if (payloadCursor !== payloadRegion) {
    throw new KilnError('FRAME-PAYLOAD-LENGTH', 24, `payload_length ${payloadLength}, but the payloads end at ${payloadCursor}`);
  }
  return entries;
}

// The TYPE checks, tensor by tensor, once the whole frame is sound.
function checkTypes(block, entries) {
  entries.forEach((e, index) => {
    const where = `tensor ${index}`;
    const code = e.dtype;
    if (code === 0) throw new KilnError('TYPE-CODE-ZERO', e.at + 8, `${where}: dtype code 0`);
    if (code >= 20 && code < OPAQUE_FIRST) throw new KilnError('TYPE-CODE-RESERVED', e.at + 8, `${where}: dtype code ${code} is reserved`);
    if (code > OPAQUE_LAST) throw new KilnError('TYPE-CODE-ABOVE-OPAQUE', e.at + 8, `${where}: dtype code ${code} is above the opaque range`);

    if (isOpaque(code)) {
      // Only the layout name and the block size: no element width, so the
      // shape is not even multiplied out (FORMAT.md 7).
      if (e.layout.length === 0) throw new KilnError('TYPE-OPAQUE-LAYOUT', e.at + 20, `${where}: opaque dtype without a layout name`);
      const bad = utf8Error(e.layout);
      if (bad >= 0) throw new KilnError('TYPE-OPAQUE-LAYOUT-UTF8', e.layoutAt + bad, `${where}: the layout name is not strict UTF-8`);
      if (e.blockSize === 0) throw new KilnError('TYPE-OPAQUE-BLOCK-SIZE', e.at + 24, `${where}: opaque dtype with block_size 0`);
      if (e.byteLength % e.blockSize) {
        throw new KilnError('TYPE-OPAQUE-MULTIPLE', e.at + 40,
          `${where}: byte_length ${e.byteLength} is not a multiple of block_size ${e.blockSize}`);
      }
      return;
    }

    const dtype = DTYPES.get(code);
    if (e.layout.length) throw new KilnError('TYPE-CLOSED-LAYOUT', e.at + 20, `${where}: ${dtype.name} has a layout name`);
    if (e.blockSize) throw new KilnError('TYPE-CLOSED-BLOCK-SIZE', e.at + 24, `${where}: ${dtype.name} has block_size ${e.blockSize}, not 0`);
    const n = elementCount(e.dims);
    if (n > U64_MAX) throw new KilnError('TYPE-SHAPE-OVERFLOW', e.shapeAt, `${where}: the element count overflows 64 bits`);
    const expected = dtype.packed ? (n + 1n) / 2n : n * BigInt(dtype.width);
    if (BigInt(e.byteLength) !== expected) {
      throw new KilnError('TYPE-BYTE-LENGTH', e.at + 40,
        `${where}: byte_length ${e.byteLength}, expected ${expected} for ${n} ${dtype.name} elements`);
    }
    const end = e.payloadAt + e.byteLength;
    if (code === BOOL) {
      for (let i = e.payloadAt; i < end; i++) {
        if (block[i] > 1) throw new KilnError('TYPE-BOOL-BYTE', i, `${where}: bool byte is ${block[i]}, not 0 or 1`);
      }
    }
    if (dtype.packed && n % 2n === 1n && block[end - 1] >> 4) {
      throw new KilnError('TYPE-HIGH-NIBBLE', end - 1, `${where}: odd count ${n} leaves a nonzero high nibble in the last byte`);
    }
  });
}

const hex2 = (b) => b.toString(16).padStart(2, '0');

// ---- Encoder (FORMAT.md 3 and 8) ----

// Refuses content no field can hold (FRAME-FIELD-RANGE) before any layout:
// nothing is ever truncated or wrapped to fit.
function checkFieldRanges(items) {
  if (items.length > U32_MAX) throw new KilnError('FRAME-FIELD-RANGE', 0, `${items.length} tensors do not fit a u32`);
  let heap = 0;
  items.forEach(({ t, name, layout, dims }, index) => {
    let problem = null;
    if (!Number.isInteger(t.dtype) || t.dtype < 0 || t.dtype > U16_MAX) problem = `dtype ${t.dtype} does not fit a u16`;
    else if (dims.length > U16_MAX) problem = `rank ${dims.length} does not fit a u16`;
    else if (dims.some((d) => typeof d !== 'bigint' || d < 0n || d > U64_MAX)) problem = 'a dimension does not fit a u64';
    else if (name.length > U32_MAX || layout.length > U32_MAX) problem = 'a name or layout name is longer than a u32 length';
    else if (!Number.isInteger(t.blockSize) || t.blockSize < 0 || t.blockSize > U32_MAX) problem = `block_size ${t.blockSize} does not fit a u32`;
    if (problem) throw new KilnError('FRAME-FIELD-RANGE', 0, `tensor ${index}: ${problem}`);
    heap = align8(heap + 8 * dims.length + name.length + layout.length);
  });
  if (heap > U32_MAX) throw new KilnError('FRAME-FIELD-RANGE', 0, `the heap would be ${heap} bytes, past a u32`);
}

function encode(tensors) {
  const items = tensors.map((t) => ({
    t: { dtype: t.dtype, blockSize: t.blockSize ?? 0 },
    name: textBytes(t.name),
    layout: textBytes(t.layout),
    dims: Array.from(t.shape ?? [], (d) => (typeof d === 'number' && Number.isSafeInteger(d) ? BigInt(d) : d)),
    payload: Buffer.isBuffer(t.payload) ? t.payload : Buffer.from(t.payload ?? []),
  }));
  checkFieldRanges(items);

  // Canonical placement (FORMAT.md 3): first every position, then one zeroed
  // buffer of the exact size, so every padding and reserved byte is zero.
  let heap = 0;
  let payload = 0;
  const placed = items.map((item) => {
    const shapeOffset = heap;
    const nameOffset = heap + 8 * item.dims.length;
    const layoutOffset = item.layout.length ? nameOffset + item.name.length : 0;
    heap = align8(nameOffset + item.name.length + item.layout.length);
    const dataOffset = align64(payload);
    payload = dataOffset + item.payload.length;
    return { ...item, shapeOffset, nameOffset, layoutOffset, dataOffset };
  });
  const heapStart = HEADER_SIZE + ENTRY_SIZE * items.length;
  const payloadOffset = align64(heapStart + heap);
  const block = Buffer.alloc(payloadOffset + payload);

  MAGIC.copy(block, 0);
  block[4] = BLOCK_VERSION;
  block[5] = FLAG_LITTLE_ENDIAN;
  block.writeUInt32LE(items.length, 8);
  block.writeUInt32LE(heap, 12);
  block.writeBigUInt64LE(BigInt(payloadOffset), 16);
  block.writeBigUInt64LE(BigInt(payload), 24);
  placed.forEach((p, index) => {
    const at = HEADER_SIZE + ENTRY_SIZE * index;
    block.writeUInt32LE(p.nameOffset, at);
    block.writeUInt32LE(p.name.length, at + 4);
    block.writeUInt16LE(p.t.dtype, at + 8);
    block.writeUInt16LE(p.dims.length, at + 10);
    block.writeUInt32LE(p.shapeOffset, at + 12);
    block.writeUInt32LE(p.layoutOffset, at + 16);
    block.writeUInt32LE(p.layout.length, at + 20);
    block.writeUInt32LE(p.t.blockSize, at + 24);
    block.writeBigUInt64LE(BigInt(p.dataOffset), at + 32);
    block.writeBigUInt64LE(BigInt(p.payload.length), at + 40);
    p.dims.forEach((d, k) => block.writeBigUInt64LE(d, heapStart + p.shapeOffset + 8 * k));
    p.name.copy(block, heapStart + p.nameOffset);
    p.layout.copy(block, heapStart + p.layoutOffset);
    p.payload.copy(block, payloadOffset + p.dataOffset);
  });

  // Same refusals as a reader, with the same rule and offset: read it back.
  checkTypes(block, checkFrame(block));
  return block;
}

module.exports = {
  VERSION, U16_MAX, U32_MAX, U64_MAX, DTYPES, BOOL, OPAQUE_FIRST, OPAQUE_LAST,
  KilnError, isOpaque, utf8Error, elementCount, decode, encode,
};
