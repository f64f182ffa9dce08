/** A byte range of an object, both ends inclusive (object-store.ts `ByteRange`). */
interface ByteRange {
  start: number;
  end: number;
}

/** A piece of an object being composed: a byte range of the source object (ends inclusive), or new text. */
export type ComposePiece = { copy: ByteRange } | { text: string };

/**
 * A part of the multipart upload that composes the object: a range of the source copied server-side
 * (UploadPartCopy), or bytes uploaded (UploadPart): texts and short ranges of the source read through.
 */
export type ComposePart = { copy: ByteRange } | { upload: ComposePiece[]; bytes: number };

const sizeOf = (piece: ComposePiece) =>
  'copy' in piece ? piece.copy.end - piece.copy.start + 1 : Buffer.byteLength(piece.text);

/**
 * The parts that compose `pieces` in order, with the fewest bytes passing through the caller: a range of
 * the source at least `minPart` long is copied server-side in parts of at most `maxCopyPart`; a text, with
 * the ranges too short to be parts of their own, is uploaded in parts of at least `minPart`, taking the
 * bytes it lacks from the start of the range after it. Every part but the last is at least `minPart`
 * long (S3's rule: 5 MiB), and an uploaded part is at most `minPart` plus the longest text.
 */
export function composeParts(
  pieces: readonly ComposePiece[],
  minPart: number,
  maxCopyPart: number,
): ComposePart[] {
  if (!(minPart > 0 && maxCopyPart >= 2 * minPart))
    throw new RangeError(
      `parts need 0 < minPart and 2 * minPart <= maxCopyPart, got ${minPart}, ${maxCopyPart}`,
    );
  const parts: ComposePart[] = [];
  let pending: ComposePiece[] = [];
  let pendingBytes = 0;
  const add = (piece: ComposePiece) => {
    const bytes = sizeOf(piece);
    if (bytes === 0) return;
    pending.push(piece);
    pendingBytes += bytes;
    if (pendingBytes < minPart) return;
    parts.push({ upload: pending, bytes: pendingBytes });
    pending = [];
    pendingBytes = 0;
  };
  for (const piece of pieces) {
    if ('text' in piece) {
      add(piece);
      continue;
    }
    let { start } = piece.copy;
    const { end } = piece.copy;
    if (end < start) continue;
    if (pendingBytes > 0) {
      // What an uploaded part lacks comes from the start of this range.
      const take = Math.min(end - start + 1, minPart - pendingBytes);
      add({ copy: { start, end: start + take - 1 } });
      start += take;
    }
    const rest = end - start + 1;
    if (rest <= 0) continue;
    if (rest < minPart) {
      add({ copy: { start, end } });
      continue;
    }
    // Nothing pending here: copied in parts as equal as can be, each over half of maxCopyPart when there
    // are several (so at least minPart).
    const count = Math.ceil(rest / maxCopyPart);
    const size = Math.floor(rest / count);
    let at = start;
    for (let n = 0; n < count; n += 1) {
      const bytes = size + (n < rest % count ? 1 : 0);
      parts.push({ copy: { start: at, end: at + bytes - 1 } });
      at += bytes;
    }
  }
  if (pendingBytes > 0) parts.push({ upload: pending, bytes: pendingBytes });
  return parts;
}
