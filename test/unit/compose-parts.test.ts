import fc from 'fast-check';
import { type ComposePart, type ComposePiece, composeParts } from '../../lib/store/compose-parts';

/**
 * The parts that compose an object from ranges of another and new texts: the bytes they make are the
 * pieces' in order, every part but the last is at least the smallest part S3 takes, copied parts are at most
 * the largest asked, and a range long enough to be a part of its own never passes through the caller.
 */

/** A source object of `bytes` bytes, each byte its offset's low 8 bits. */
const source = (bytes: number) => Buffer.from(Array.from({ length: bytes }, (_, i) => i & 0xff));

const bytesOfPiece = (from: Buffer, piece: ComposePiece) =>
  'copy' in piece ? from.subarray(piece.copy.start, piece.copy.end + 1) : Buffer.from(piece.text, 'utf8');

const bytesOfPart = (from: Buffer, part: ComposePart) =>
  'copy' in part
    ? bytesOfPiece(from, part)
    : Buffer.concat(part.upload.map((piece) => bytesOfPiece(from, piece)));

/** Pieces over a source of `size` bytes: ranges inside it (some empty) and texts (some non-ASCII, some empty). */
const piecesOver = (size: number) =>
  fc.array(
    fc.oneof(
      fc.tuple(fc.nat(size - 1), fc.nat(size)).map(
        ([start, length]): ComposePiece => ({
          copy: { start, end: Math.min(size - 1, start + length) - 1 },
        }),
      ),
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((text): ComposePiece => ({ text })),
    ),
    { maxLength: 12 },
  );

it('makes the pieces’ bytes, in parts S3 takes, copying every range long enough to be a part', () => {
  const size = 400;
  const from = source(size);
  fc.assert(
    fc.property(
      piecesOver(size),
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 0, max: 100 }),
      (pieces, minPart, extra) => {
        const maxCopyPart = 2 * minPart + extra;
        const parts = composeParts(pieces, minPart, maxCopyPart);
        const made = Buffer.concat(parts.map((part) => bytesOfPart(from, part)));
        expect(made.equals(Buffer.concat(pieces.map((piece) => bytesOfPiece(from, piece))))).toBe(true);
        for (const [n, part] of parts.entries()) {
          const bytes = bytesOfPart(from, part).length;
          expect(bytes).toBeGreaterThan(0);
          if (n < parts.length - 1) expect(bytes).toBeGreaterThanOrEqual(minPart);
          if ('copy' in part) expect(bytes).toBeLessThanOrEqual(maxCopyPart);
          else {
            expect(part.bytes).toBe(bytes);
            const longestText = Math.max(
              0,
              ...part.upload.map((piece) => ('text' in piece ? Buffer.byteLength(piece.text) : 0)),
            );
            expect(bytes).toBeLessThan(minPart + Math.max(minPart, longestText));
          }
        }
        // What passes through the caller: at most minPart of each range, and texts.
        const readThrough = parts
          .flatMap((part) => ('upload' in part ? part.upload : []))
          .filter((piece) => 'copy' in piece);
        for (const piece of readThrough) expect(bytesOfPiece(from, piece).length).toBeLessThan(minPart);
      },
    ),
    { numRuns: 2_000 },
  );
});

it('copies a long range after a short text in parts of at most the largest asked, the text padded from it', () => {
  const MiB = 1024 * 1024;
  const parts = composeParts(
    [{ text: 'head' }, { copy: { start: 0, end: 200 * MiB - 1 } }, { text: 'tail' }],
    5 * MiB,
    64 * MiB,
  );
  expect(
    parts.map((part) =>
      'copy' in part ? ['copy', part.copy.end - part.copy.start + 1] : ['upload', part.bytes],
    ),
  ).toEqual([
    ['upload', 5 * MiB],
    ['copy', 51_118_081],
    ['copy', 51_118_081],
    ['copy', 51_118_081],
    ['copy', 51_118_081],
    ['upload', 4],
  ]);
  expect(() => composeParts([], 5, 9)).toThrow(RangeError);
});
