/**
 * The few DER (ASN.1 Distinguished Encoding Rules) constructions an X.509 certificate
 * needs, written out by hand so that making development certificates needs nothing but
 * Node's `crypto`. Private to the webhook module.
 *
 * @module
 */

/** Encodes the length octets of a DER value. */
function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  let rest = length;
  while (rest > 0) {
    bytes.unshift(rest & 0xff);
    rest = Math.floor(rest / 256);
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A value with its tag and length. */
export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

/** SEQUENCE. */
export function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, ...items);
}

/** SET. */
export function set(...items: Buffer[]): Buffer {
  return tlv(0x31, ...items);
}

/** INTEGER from unsigned big-endian bytes (a leading zero is added when the top bit is set). */
export function integerFromBytes(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && (bytes[start + 1] ?? 0) < 0x80) start++;
  const trimmed = bytes.subarray(start);
  const body = (trimmed[0] ?? 0) >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(0x02, body.length === 0 ? Buffer.from([0]) : body);
}

/** INTEGER from a small non-negative number. */
export function integer(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest & 0xff);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  return integerFromBytes(Buffer.from(bytes));
}

/** BOOLEAN. */
export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/** NULL. */
export function nullValue(): Buffer {
  return Buffer.from([0x05, 0x00]);
}

/** OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => Number(p));
  const [first = 0, second = 0, ...rest] = parts;
  const bytes: number[] = [first * 40 + second];
  for (const part of rest) {
    const chunk: number[] = [part & 0x7f];
    let value = Math.floor(part / 128);
    while (value > 0) {
      chunk.unshift((value & 0x7f) | 0x80);
      value = Math.floor(value / 128);
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** OCTET STRING. */
export function octetString(bytes: Buffer): Buffer {
  return tlv(0x04, bytes);
}

/** BIT STRING of whole bytes (no unused bits). */
export function bitString(bytes: Buffer): Buffer {
  return tlv(0x03, Buffer.from([0]), bytes);
}

/**
 * BIT STRING of named bits (bit 0 is the most significant bit of the first byte), in the
 * minimal form DER asks for: trailing zero bits are dropped and counted as unused.
 */
export function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) {
    const index = Math.floor(bit / 8);
    bytes[index] = (bytes[index] ?? 0) | (0x80 >> (bit % 8));
  }
  const unused = 7 - (highest % 8);
  return tlv(0x03, Buffer.from([unused]), bytes);
}

/** UTF8String. */
export function utf8String(value: string): Buffer {
  return tlv(0x0c, Buffer.from(value, 'utf8'));
}

/** A time as X.509 wants it: UTCTime before 2050, GeneralizedTime from 2050 on. */
export function time(ms: number): Buffer {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const rest = `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
  const year = d.getUTCFullYear();
  if (year < 2050) return tlv(0x17, Buffer.from(`${pad(year % 100)}${rest}`, 'ascii'));
  return tlv(0x18, Buffer.from(`${year}${rest}`, 'ascii'));
}

/** A context-specific constructed tag (`[n] EXPLICIT`). */
export function explicit(tagNumber: number, ...contents: Buffer[]): Buffer {
  return tlv(0xa0 | tagNumber, ...contents);
}

/** A context-specific primitive tag (`[n] IMPLICIT` of a primitive type). */
export function implicitPrimitive(tagNumber: number, bytes: Buffer): Buffer {
  return tlv(0x80 | tagNumber, bytes);
}

/** PEM armour around DER bytes. */
export function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
