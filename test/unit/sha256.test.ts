import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hmacSha256, NATIVE_FROM, sha256, sha256Hex } from '../../lib/runtime/sha256';

const nodeHex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256', () => {
  it('matches FIPS 180-4’s examples', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto at every length around the block and padding edges, bytes and text', () => {
    for (let length = 0; length <= 300; length += 1) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes)).toBe(nodeHex(bytes));
    }
    for (const text of ['é', 'ü'.repeat(40), '日本語のテキスト'.repeat(9), '😀'.repeat(33), 'a\u0000b']) {
      expect(sha256Hex(text)).toBe(nodeHex(text));
    }
  });

  it('hashes inputs from NATIVE_FROM bytes on, and the ones just under, the same as node:crypto', () => {
    for (const length of [NATIVE_FROM - 1, NATIVE_FROM, NATIVE_FROM + 1, 3 * NATIVE_FROM + 17]) {
      const bytes = randomBytes(length);
      expect(sha256(bytes).toString('hex')).toBe(nodeHex(bytes));
    }
  });

  it('leaves its input as it was', () => {
    const bytes = randomBytes(130);
    const copy = Buffer.from(bytes);
    sha256(bytes);
    expect(bytes.equals(copy)).toBe(true);
  });
});

describe('hmacSha256', () => {
  it('matches RFC 4231’s first and sixth test cases', () => {
    expect(hmacSha256(Buffer.alloc(20, 0x0b), 'Hi There').toString('hex')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    expect(
      hmacSha256(Buffer.alloc(131, 0xaa), 'Test Using Larger Than Block-Size Key - Hash Key First').toString(
        'hex',
      ),
    ).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
  });

  it('matches node:crypto for keys and messages of every kind of length', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      for (const messageLength of [0, 1, 55, 56, 64, 119, 120, 1000]) {
        const key = randomBytes(keyLength);
        const message = randomBytes(messageLength);
        expect(hmacSha256(key, message).toString('hex')).toBe(
          createHmac('sha256', key).update(message).digest('hex'),
        );
      }
    }
    expect(hmacSha256('AWS4secret', '20261129').toString('hex')).toBe(
      createHmac('sha256', 'AWS4secret').update('20261129', 'utf8').digest('hex'),
    );
  });
});
