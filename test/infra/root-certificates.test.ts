import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { timeProcess } from '../../bench/cold-start';
import { newKeyOptions, openssl, selfSignedCertificate } from '../../bench/tls-front';
import {
  hashedNames,
  ROOT_CERTIFICATES_ENV,
  ROOT_CERTIFICATES_FOLDER,
  rootCertificatesLayerDir,
  subjectHash,
} from '../../infra/root-certificates';

const opensslHashes = new Map<string, string>();

/** What `openssl x509 -subject_hash` prints for a certificate (the CLI the directory's layout comes from). */
function opensslHash(pem: string): string {
  const known = opensslHashes.get(pem);
  if (known !== undefined) return known;
  const made = spawnSync('openssl', ['x509', '-subject_hash', '-noout'], { input: pem, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl: ${made.error?.message ?? made.stderr}`);
  const hash = made.stdout.trim();
  opensslHashes.set(pem, hash);
  return hash;
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'root-certificates-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a certificate's subject hash", () => {
  it("is OpenSSL's for every root certificate node bundles", () => {
    const differing = rootCertificates.filter((pem) => subjectHash(pem) !== opensslHash(pem));
    expect(rootCertificates.length).toBeGreaterThan(100);
    expect(differing).toEqual([]);
  });

  it("is the canonical name's: case, outer and repeated white space and the string type do not change it", () => {
    const make = (name: string, file: string) => selfSignedCertificate(work, file, name, ['-utf8']);
    const plain = make('/O=Commerce Test/CN=Root CA', 'plain');
    const spaced = make('/O=  commerce   TEST /CN=root\tca', 'spaced');
    expect(subjectHash(spaced)).toBe(opensslHash(spaced));
    expect(subjectHash(spaced)).toBe(subjectHash(plain));
    const accented = make('/O=Zürich Prüfstelle/CN=Ünïcode Root', 'accented');
    expect(subjectHash(accented)).toBe(opensslHash(accented));
  });
});

describe('the layer of root certificates', () => {
  it("holds each of node's root certificates once, named <hash>.<n>, and is written once for a set", () => {
    const cache = join(work, 'cache');
    const dir = rootCertificatesLayerDir(cache);
    const folder = join(dir, ROOT_CERTIFICATES_FOLDER);
    const files = readdirSync(folder);
    expect(files).toHaveLength(rootCertificates.length);
    for (const file of files) {
      const pem = readFileSync(join(folder, file), 'utf8').trimEnd();
      expect(rootCertificates).toContain(pem);
      expect(file).toBe(`${opensslHash(pem)}.${file.split('.')[1]}`);
    }
    // The same certificates: the same folder, not written again.
    expect(rootCertificatesLayerDir(cache)).toBe(dir);
    expect(readdirSync(cache)).toHaveLength(1);
  });

  it('numbers certificates that share a subject hash', () => {
    const [first] = rootCertificates;
    const names = [...hashedNames([first as string, first as string]).keys()];
    expect(names).toEqual([`${subjectHash(first as string)}.0`, `${subjectHash(first as string)}.1`]);
  });
});

/**
 * A root, an intermediate it signs and a server certificate for 127.0.0.1 the intermediate signs, as an
 * AWS endpoint's chain is (the server sends its certificate and the intermediate; the root is the client's).
 */
function makeChain(dir: string): { root: string; key: string; chain: string } {
  const ca = join(dir, 'ca.ext');
  writeFileSync(ca, 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  const leaf = join(dir, 'leaf.ext');
  writeFileSync(leaf, 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  /** A new key and a certificate for `subject` signed by `<issuer>`'s key, with the extensions in `extensions`. */
  const issue = (name: string, subject: string, issuer: string, extensions: string) => {
    openssl(dir, ['req', '-new', ...newKeyOptions(name), '-subj', subject, '-out', `${name}.csr`]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${issuer}.pem`,
      '-CAkey',
      `${issuer}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      extensions,
      '-out',
      `${name}.pem`,
    ]);
  };
  selfSignedCertificate(dir, 'root', '/O=Commerce Test/CN=Test Root', ['-extensions', 'v3_ca']);
  issue('int', '/O=Commerce Test/CN=Test Intermediate', 'root', ca);
  issue('leaf', '/CN=127.0.0.1', 'int', leaf);
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  return { root: read('root.pem'), key: read('leaf.key'), chain: read('leaf.pem') + read('int.pem') };
}

/** A fresh `node` fetching `url` with `env`: the status, or the error's code. */
async function fetchIn(env: NodeJS.ProcessEnv, url: string): Promise<string> {
  const script = `require('https').get(${JSON.stringify(url)}, (r) => { r.resume(); console.log(r.statusCode); }).on('error', (e) => console.log(e.code));`;
  return (await timeProcess(['-e', script], env)).stdout.trim();
}

describe("a function's TLS connections with the layer's environment", () => {
  let server: Server;
  let url: string;
  let chain: ReturnType<typeof makeChain>;
  /** The process's environment without any certificate setting of this machine's. */
  const {
    NODE_EXTRA_CA_CERTS: _machine,
    NODE_OPTIONS: _options,
    SSL_CERT_DIR: _dir,
    SSL_CERT_FILE: _file,
    ...base
  } = process.env;
  /** ROOT_CERTIFICATES_ENV with its directory at `dir` (the layer's is at /opt in Lambda). */
  const layerEnv = (dir: string): NodeJS.ProcessEnv => ({
    ...base,
    ...ROOT_CERTIFICATES_ENV,
    SSL_CERT_DIR: dir,
    SSL_CERT_FILE: join(dir, 'no-default-file'),
  });

  beforeAll(async () => {
    chain = makeChain(work);
    server = createServer({ key: chain.key, cert: chain.chain }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies a chain whose root is in the directory', async () => {
    const dir = join(
      rootCertificatesLayerDir(join(work, 'with-test-root'), [...rootCertificates, chain.root]),
      ROOT_CERTIFICATES_FOLDER,
    );
    expect(await fetchIn(layerEnv(dir), url)).toBe('200');
  });

  it('refuses one whose root is not, as node refuses it with its own store', async () => {
    const dir = join(rootCertificatesLayerDir(join(work, 'node-roots')), ROOT_CERTIFICATES_FOLDER);
    expect(await fetchIn(layerEnv(dir), url)).toBe('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
    expect(await fetchIn(base, url)).toBe('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
  });

  it('reads no default certificate file: the one it names does not exist', () => {
    expect(ROOT_CERTIFICATES_ENV.SSL_CERT_FILE?.startsWith(`${ROOT_CERTIFICATES_ENV.SSL_CERT_DIR}/`)).toBe(
      true,
    );
    expect(hashedNames(rootCertificates).has('no-default-file')).toBe(false);
  });
});
