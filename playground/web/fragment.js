// The page's state in the URL fragment: JSON, compressed (deflate-raw) when the browser can,
// in base64url. Reading never throws: a fragment that cannot be read is reported and ignored.

const MAX_FRAGMENT = 4 << 20; // characters
const MAX_STATE = 8 << 20; // bytes once decompressed
// v: version, a: authorizer choice, t: authorizer table, l: namespace labels, e: expression,
// c/cx: configuration text or example name, r/rx: review text or example name.
const FIELDS = ['v', 'a', 't', 'l', 'e', 'c', 'cx', 'r', 'rx'];

function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function through(bytes, transform, limit) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error('too large');
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Keeps the known fields of a decoded state, each a string. */
export function sanitize(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('not an object');
  }
  const out = {};
  for (const k of FIELDS) {
    if (typeof value[k] === 'string') out[k] = value[k];
  }
  return out;
}

/** The fragment (without '#') for a state. */
export async function encodeState(state) {
  const bytes = new TextEncoder().encode(JSON.stringify(sanitize(state)));
  if (typeof CompressionStream === 'function') {
    try {
      return 'z=' + toBase64Url(await through(bytes, new CompressionStream('deflate-raw'), MAX_STATE));
    } catch {
      // Fall through to the uncompressed form.
    }
  }
  return 'j=' + toBase64Url(bytes);
}

/**
 * Reads a fragment: `{ state }`, `{ state: null }` for none, or `{ error }` when it cannot
 * be read.
 */
export async function decodeState(fragment) {
  const text = (fragment || '').replace(/^#/, '');
  if (text === '') return { state: null };
  try {
    if (text.length > MAX_FRAGMENT) throw new Error('too long');
    let bytes;
    if (text.startsWith('z=')) {
      if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot decompress it');
      bytes = await through(fromBase64Url(text.slice(2)), new DecompressionStream('deflate-raw'), MAX_STATE);
    } else if (text.startsWith('j=')) {
      bytes = fromBase64Url(text.slice(2));
    } else {
      throw new Error('unknown format');
    }
    const json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { state: sanitize(JSON.parse(json)) };
  } catch (e) {
    return { error: String(e && e.message ? e.message : e) };
  }
}
