import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';

/**
 * The functions' trusted root certificates, as a directory OpenSSL reads lazily: one file per certificate,
 * named by the hash of its subject (`<hash>.<n>`, as `openssl rehash` names them). Node builds its store of
 * root certificates at a process's first TLS connection by parsing every one it bundles (140-odd, slow
 * under OpenSSL 3: 25-47 ms on our machines, docs/performance.md), whatever the connection needs; with
 * `--use-openssl-ca` and `SSL_CERT_DIR` naming such a directory, it asks OpenSSL, which reads the one
 * certificate a chain names when it verifies it. The directory holds the same certificates node bundles
 * (Mozilla's), so the functions trust what node would.
 */

/** Where a layer's files are in a Lambda container (`/opt`) and the folder the layer puts them in. */
export const ROOT_CERTIFICATES_FOLDER = 'root-certificates';
export const ROOT_CERTIFICATES_DIR = `/opt/${ROOT_CERTIFICATES_FOLDER}`;

/**
 * The environment that makes node take its roots from that directory, and nothing else: no default
 * certificate file (OpenSSL would parse all of one at the first connection), which this path never is.
 */
export const ROOT_CERTIFICATES_ENV: Readonly<Record<string, string>> = {
  NODE_OPTIONS: '--use-openssl-ca',
  SSL_CERT_DIR: ROOT_CERTIFICATES_DIR,
  SSL_CERT_FILE: `${ROOT_CERTIFICATES_DIR}/no-default-file`,
};

interface Tlv {
  tag: number;
  /** The whole element: tag, length and content. */
  der: Buffer;
  content: Buffer;
}

/** The DER elements of `bytes`, in order. */
function elements(bytes: Buffer): Tlv[] {
  const out: Tlv[] = [];
  let at = 0;
  while (at < bytes.length) {
    const tag = bytes[at] as number;
    let length = bytes[at + 1] as number;
    let header = 2;
    if (length & 0x80) {
      const octets = length & 0x7f;
      if (octets === 0 || octets > 4) throw new Error('unsupported DER length');
      length = 0;
      for (let i = 0; i < octets; i += 1) length = length * 256 + (bytes[at + 2 + i] as number);
      header += octets;
    }
    const end = at + header + length;
    if (end > bytes.length) throw new Error('truncated DER element');
    out.push({ tag, der: bytes.subarray(at, end), content: bytes.subarray(at + header, end) });
    at = end;
  }
  return out;
}

function encode(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const octets: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
    length = Buffer.from([0x80 | octets.length, ...octets]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

/** The certificate's subject `Name`: the sixth element of its `TBSCertificate` counting the version. */
function subjectOf(der: Buffer): Buffer {
  const [certificate] = elements(der);
  const [tbs] = elements(certificate?.content ?? Buffer.alloc(0));
  const fields = elements(tbs?.content ?? Buffer.alloc(0));
  // [0] version (explicit, optional), serial, signature algorithm, issuer, validity, subject.
  const subject = fields[fields[0]?.tag === 0xa0 ? 5 : 4];
  if (subject?.tag !== 0x30) throw new Error('no subject in the certificate');
  return subject.content;
}

/** String types OpenSSL compares canonically (ASN1_MASK_CANON), as the bytes per character they hold. */
const CANONICAL_STRINGS: Record<number, 'utf8' | 1 | 2 | 4> = {
  12: 'utf8', // UTF8String
  19: 1, // PrintableString
  20: 1, // T61String (read as Latin-1, as OpenSSL does)
  22: 1, // IA5String
  26: 1, // VisibleString
  28: 4, // UniversalString
  30: 2, // BMPString
};

const isSpace = (byte: number) => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);

/** A value's canonical form: UTF-8, ASCII lower-cased, outer white space dropped, inner runs made one space. */
function canonicalValue(value: Tlv): Buffer {
  const width = CANONICAL_STRINGS[value.tag];
  if (width === undefined) return value.der;
  let text: string;
  if (width === 'utf8') text = value.content.toString('utf8');
  else {
    const points: number[] = [];
    for (let i = 0; i + width <= value.content.length; i += width) {
      points.push(width === 1 ? (value.content[i] as number) : value.content.readUIntBE(i, width));
    }
    text = String.fromCodePoint(...points);
  }
  const bytes = Buffer.from(text, 'utf8');
  let start = 0;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start] as number)) start += 1;
  while (end > start && isSpace(bytes[end - 1] as number)) end -= 1;
  const out: number[] = [];
  for (let i = start; i < end; ) {
    const byte = bytes[i] as number;
    if (byte >= 0x80) {
      out.push(byte);
      i += 1;
    } else if (isSpace(byte)) {
      out.push(0x20);
      while (isSpace(bytes[i] as number)) i += 1;
    } else {
      out.push(byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);
      i += 1;
    }
  }
  return encode(0x0c, Buffer.from(out));
}

/**
 * OpenSSL's hash of a certificate's subject (`X509_NAME_hash_ex`, what `openssl x509 -subject_hash`
 * prints): the first four bytes, little-endian, of the SHA-1 of the name's canonical encoding, each
 * relative distinguished name's SET of its attributes (their values canonical, sorted as DER sorts a SET
 * OF), one after the other without the outer SEQUENCE.
 */
export function subjectHash(pem: string): string {
  const der = Buffer.from(new X509Certificate(pem).raw);
  const canonical = elements(subjectOf(der)).map((rdn) => {
    const attributes = elements(rdn.content).map((attribute) => {
      const [type, value] = elements(attribute.content);
      if (type === undefined || value === undefined) throw new Error('malformed name attribute');
      return encode(0x30, Buffer.concat([type.der, canonicalValue(value)]));
    });
    attributes.sort(Buffer.compare);
    return encode(0x31, Buffer.concat(attributes));
  });
  const digest = createHash('sha1').update(Buffer.concat(canonical)).digest();
  return digest.readUInt32LE(0).toString(16).padStart(8, '0');
}

/** Each certificate's file name in a hashed directory: `<hash>.<n>`, n counting certificates of one hash. */
export function hashedNames(pems: readonly string[]): Map<string, string> {
  const seen = new Map<string, number>();
  const names = new Map<string, string>();
  for (const pem of pems) {
    const hash = subjectHash(pem);
    const n = seen.get(hash) ?? 0;
    seen.set(hash, n + 1);
    names.set(`${hash}.${n}`, pem);
  }
  return names;
}

/**
 * The layer's content for `pems` (node's bundled roots by default), under `cacheRoot`: a folder named by
 * the certificates' digest holding `root-certificates/<hash>.<n>`. Written once for a set of certificates;
 * answers the folder to make the layer's asset from.
 */
export function rootCertificatesLayerDir(
  cacheRoot: string,
  pems: readonly string[] = rootCertificates,
): string {
  const digest = createHash('sha256').update(pems.join('\n')).digest('hex').slice(0, 16);
  const dir = join(cacheRoot, digest);
  if (existsSync(dir)) return dir;
  const building = `${dir}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(join(building, ROOT_CERTIFICATES_FOLDER), { recursive: true });
  for (const [name, pem] of hashedNames(pems)) {
    writeFileSync(join(building, ROOT_CERTIFICATES_FOLDER, name), pem.endsWith('\n') ? pem : `${pem}\n`);
  }
  renameSync(building, dir);
  return dir;
}
