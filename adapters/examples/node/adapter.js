#!/usr/bin/env node
'use strict';
// kiln-node as a conformance adapter: protocol/PROTOCOL.md, protocol version 1.
//
// Reads one JSON request per line on stdin, writes one JSON reply per line on
// stdout, and exits with status 0 at end of input:
//
//   printf '{"op":"hello","protocol":1,"id":1}\n' | node adapter.js
//
// A request it cannot understand gets an error reply naming the member at
// fault, and the loop goes on. It offers both profiles: kiln-v2 (kiln.js) and
// hurray-elements (hurray.js), chosen by each request's "profile" member.
//
// JSON numbers are doubles in JavaScript, exact only up to 2^53, while shape
// dimensions go up to 2^64 - 1. So the hello asks for "int64": "string": the
// runner then writes dimensions as decimal strings, and this adapter writes
// 64-bit reply fields (dimensions, reject offsets) as decimal strings too.
// Every line goes through plain JSON.parse; no big-number parser is needed.

const kiln = require('./kiln');
const hurray = require('./hurray');

const PROTOCOL_VERSION = 1;
const KILN_PROFILE = 'kiln-v2';
const HURRAY_PROFILE = 'hurray-elements';
const PROFILES = [KILN_PROFILE, HURRAY_PROFILE];

const HELLO = {
  name: 'kiln-node',
  version: kiln.VERSION,
  protocol: PROTOCOL_VERSION,
  ops: ['decode', 'encode'],
  profiles: PROFILES,
  hurray_tier2: hurray.TIER2_NAMES,
  int64: 'string',
};

// A request the adapter cannot answer; its message becomes an error reply.
class BadRequest extends Error {}

const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

// ---- Reading request members (PROTOCOL.md, "Values") ----

const show = (value) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 80 ? text : `${text.slice(0, 80)}...`;
};

function member(obj, key, where) {
  if (!has(obj, key)) throw new BadRequest(`${where}${key}: required member is missing`);
  return obj[key];
}

// A small integer field (a tag, a dtype, a block size): a JSON number.
function readInt(obj, key, maximum, where = '') {
  const value = member(obj, key, where);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new BadRequest(`${where}${key}: expected an integer 0..${maximum}, got ${show(value)}`);
  }
  if (value > maximum) throw new BadRequest(`${where}${key}: ${value} is outside 0..${maximum}`);
  return value;
}

const digits = (text) => (text.length <= 40 ? text : `${text.slice(0, 40)}... (${text.length} digits)`);

// A 64-bit field: a canonical decimal string (int64 "string"), or a number
// small enough that JSON.parse kept it exact.
function readU64(value, what) {
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) {
    // 2^64 - 1 has 20 digits: a longer string is never converted at all.
    const n = value.length <= 20 ? BigInt(value) : kiln.U64_MAX + 1n;
    if (n > kiln.U64_MAX) throw new BadRequest(`${what}: ${digits(value)} is above 2^64-1`);
    return n;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
    throw new BadRequest(`${what}: ${value} is past 2^53 and was not read exactly; send it as a decimal string`);
  }
  throw new BadRequest(`${what}: expected an integer 0..2^64-1 as a decimal string, got ${show(value)}`);
}

function readShape(obj, where = '') {
  const shape = member(obj, 'shape', where);
  if (!Array.isArray(shape)) throw new BadRequest(`${where}shape: expected an array of integers`);
  return shape.map((d, i) => readU64(d, `${where}shape[${i}]`));
}

function readString(obj, key, where = '') {
  const value = member(obj, key, where);
  if (typeof value !== 'string') throw new BadRequest(`${where}${key}: expected a string, got ${show(value)}`);
  return value;
}

// Buffer.from(text, 'hex') stops quietly at the first bad digit, so the text
// is checked first, and the message says where it broke.
function readHex(obj, key, where = '') {
  const text = readString(obj, key, where);
  if (!/^[0-9a-fA-F]*$/.test(text)) {
    const at = text.search(/[^0-9a-fA-F]/);
    throw new BadRequest(`${where}${key}: not hex: ${JSON.stringify(text[at])} is not a hex digit at character ${at}`);
  }
  if (text.length % 2) throw new BadRequest(`${where}${key}: not hex: odd number of digits (${text.length})`);
  return Buffer.from(text, 'hex');
}

// A name or layout name that is not valid UTF-8 cannot be a JSON string: it
// comes as name_hex or layout_hex, raw bytes that kiln.encode takes and refuses.
function readText(obj, key, where, nullable) {
  if (!has(obj, key) && has(obj, `${key}_hex`)) {
    return readHex(obj, `${key}_hex`, where);
  }
  const value = member(obj, key, where);
  if (nullable && value === null) return null;
  if (typeof value !== 'string') throw new BadRequest(`${where}${key}: expected a string${nullable ? ' or null' : ''}, got ${show(value)}`);
  return value;
}

function readTensor(obj, where) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new BadRequest(`${where}: expected a tensor description object`);
  }
  where += '.';
  return {
    name: readText(obj, 'name', where, false),
    dtype: readInt(obj, 'dtype', kiln.U16_MAX, where),
    shape: readShape(obj, where),
    layout: readText(obj, 'layout', where, true),
    blockSize: readInt(obj, 'block_size', kiln.U32_MAX, where),
    payload: readHex(obj, 'payload', where),
  };
}

function readElements(request) {
  const elements = member(request, 'elements', '');
  if (!Array.isArray(elements)) throw new BadRequest('elements: expected an array of hex strings');
  elements.forEach((e, i) => {
    if (typeof e !== 'string') throw new BadRequest(`elements[${i}]: expected a hex string, got ${show(e)}`);
    if (!/^[0-9a-fA-F]+$/.test(e)) {
      const at = e.search(/[^0-9a-fA-F]/);
      const why = at < 0 ? 'empty' : `${JSON.stringify(e[at])} is not a hex digit at character ${at}`;
      throw new BadRequest(`elements[${i}]: not hex: ${why}`);
    }
  });
  return elements;
}

// ---- Writing replies ----

// 64-bit reply fields are written as decimal strings, which the runner reads
// from any adapter: JSON.stringify has no number form for a BigInt, and a
// Number is not exact past 2^53.
const u64 = (value) => String(value);

function reject(error) {
  const reply = { result: 'reject', class: error.errorClass, rule: error.rule, message: error.detail ?? error.message };
  if (error.offset !== null && error.offset !== undefined) reply.offset = u64(error.offset);
  return reply;
}

function tensorJson(t) {
  return {
    name: t.name,
    dtype: t.dtype,
    shape: t.shape.map(u64),
    layout: t.layout,  // null for none, as writers write it
    block_size: t.blockSize,
    payload: t.payload.toString('hex'),
  };
}

// ---- Answering ----

// Library errors that are the format's refusals become rejects; anything else
// thrown is a bug and becomes an error reply in answerLine.
function refusing(fn) {
  try {
    return fn();
  } catch (error) {
    if (error instanceof kiln.KilnError || error instanceof hurray.HurrayError) return reject(error);
    throw error;
  }
}

function answerKiln(op, request) {
  if (op === 'decode') {
    const block = readHex(request, 'block');
    return refusing(() => ({ result: 'accept', tensors: kiln.decode(block).map(tensorJson) }));
  }
  const descriptions = member(request, 'tensors', '');
  if (!Array.isArray(descriptions)) throw new BadRequest('tensors: expected an array of tensor descriptions');
  // Every member is read before the library runs, so a malformed request is
  // always an error reply, never a rejection.
  const tensors = descriptions.map((d, i) => readTensor(d, `tensors[${i}]`));
  return refusing(() => ({ result: 'block', block: kiln.encode(tensors).toString('hex') }));
}

function answerHurray(op, request) {
  const tag = readInt(request, 'tag', 0xff);
  const shape = readShape(request);
  if (op === 'decode') {
    const mode = has(request, 'mode') ? request.mode : hurray.STRICT;
    if (mode !== hurray.STRICT && mode !== hurray.PERMISSIVE) {
      throw new BadRequest(`mode: expected "strict" or "permissive", got ${show(mode)}`);
    }
    const data = readHex(request, 'data');
    return refusing(() => {
      const decoded = hurray.decode(tag, shape, mode, data);
      return decoded.opaque ? { result: 'opaque' } : { result: 'accept', elements: decoded.elements };
    });
  }
  const elements = readElements(request);
  return refusing(() => ({ result: 'data', data: hurray.encode(tag, shape, elements).toString('hex') }));
}

function answer(request) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new BadRequest('the line is not a JSON object');
  }
  const op = member(request, 'op', '');
  if (op === 'hello') {
    const version = member(request, 'protocol', '');
    if (version !== PROTOCOL_VERSION) {
      throw new BadRequest(`protocol: this adapter speaks protocol ${PROTOCOL_VERSION}, not ${show(version)}`);
    }
    return { ...HELLO };
  }
  if (op !== 'decode' && op !== 'encode') {
    throw new BadRequest(`op: unknown op ${show(op)}; protocol 1 has hello, decode and encode`);
  }
  if (has(request, 'case') && typeof request.case !== 'string') throw new BadRequest(`case: expected a string, got ${show(request.case)}`);
  const profile = has(request, 'profile') ? request.profile : KILN_PROFILE;
  if (profile === KILN_PROFILE) return answerKiln(op, request);
  if (profile === HURRAY_PROFILE) return answerHurray(op, request);
  throw new BadRequest(`profile: ${show(profile)} is not offered; this adapter offers "kiln-v2" and "hurray-elements"`);
}

// The reply to one raw request line (a Buffer, without its "\n"); never throws.
function answerLine(line) {
  let request = null;
  let reply;
  try {
    const bad = kiln.utf8Error(line);
    if (bad >= 0) throw new BadRequest(`the line is not valid UTF-8 at byte ${bad}`);
    try {
      request = JSON.parse(line.toString('utf8'));
    } catch (error) {
      throw new BadRequest(`the line is not JSON: ${error.message}`);
    }
    reply = answer(request);
  } catch (error) {
    // A bad request, or a bug or out of memory: say so and keep serving.
    const message = error instanceof BadRequest ? error.message : `internal failure: ${error.name}: ${error.message}`;
    reply = { result: 'error', message };
  }
  // Echo the id (and the case) so the runner can tell replies and requests
  // are in step (PROTOCOL.md, "Replies").
  if (request !== null && typeof request === 'object' && !Array.isArray(request)) {
    if (Number.isSafeInteger(request.id) && request.id >= 0) reply.id = request.id;
    if ('result' in reply && typeof request.case === 'string') reply.case = request.case;
  }
  return reply;
}

// ---- The loop ----

// stdin is split into lines by hand, as bytes: readline would decode them
// first and silently turn bytes that are not UTF-8 into U+FFFD, and such a
// line must get an error reply. Lines can be tens of MiB, so the pieces of a
// line are kept as a list and joined once.
function serve(input, output) {
  let pending = [];
  const reply = (line) => {
    const answer = answerLine(line);
    let text;
    try {
      text = JSON.stringify(answer);
    } catch (error) {  // a reply past what a string can hold: still one line
      text = JSON.stringify({ result: 'error', message: `the reply cannot be written: ${error.message}`, id: answer.id });
    }
    output.write(`${text}\n`);
  };
  input.on('data', (chunk) => {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, end));
      reply(Buffer.concat(pending));
      pending = [];
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  input.on('end', () => {
    // A last line without "\n" still gets its reply. Then nothing is left to
    // do, so node exits with status 0 once stdout has drained.
    if (pending.length) reply(Buffer.concat(pending));
  });
}

if (require.main === module) {
  // A closed stdout (EPIPE) means the runner is gone: nobody is left to answer.
  process.stdout.on('error', () => process.exit(0));
  serve(process.stdin, process.stdout);
}

module.exports = { HELLO, answer, answerLine, serve };
