import type { AuthoredSources } from '../../store/pcm-repository';
import type { ExportedFamily, ExportIndexSink } from './export';

/**
 * An authored release's export index: where each family's text sits in the document Export wrote, kept
 * beside that document while the release is kept, so that the next release's Export rewrites only the
 * families that changed (lib/catalog/pipeline/export-splice.ts). One line a family, `<length> <a|e> <id>
 * <id>…` (`e`: written as a bundle's component), in document order: the families follow one another with
 * one comma between them from the trailer's `products` on, so a line says where its family is without an
 * offset, and the lines of the families not written again stay the same bytes (the next index is composed
 * from this one, server-side, like the document). Exports before wrote `<offset> <length> <a|e> <id>…`
 * (no `index_format` in their trailer), still read. Beside it a trailer (JSON): what the next export
 * checks before it builds on this one.
 */

export interface ExportTrailer {
  /** The byte where the catalog head ends. */
  head_end: number;
  /** The release's time (its `created_at`, in ms): the moment its sales were chosen for. */
  at: number;
  /** When its export began (ms): the change log is read from a margin before it. */
  started_at: number;
  sources: AuthoredSources;
  /** The first time (ms) after `at` at which a sale of a product in it starts or ends (null: none). */
  next_boundary: number | null;
  /** 2: the index's lines give lengths, not offsets (absent: an index of offsets, written before). */
  index_format?: typeof INDEX_FORMAT;
  /** The first family's first byte and the last one's end (null: no family); with `index_format` only. */
  products?: [number, number] | null;
}

export const INDEX_FORMAT = 2;

/** A family's line of the index (without its newline). */
export const familyLine = (family: Omit<ExportedFamily, 'offset'>) =>
  `${family.length} ${family.extra ? 'e' : 'a'} ${family.ids.join(' ')}`;

/** A family of the index, with where its line is in the index (its first byte, and its bytes with the newline). */
export type IndexedFamily = ExportedFamily & { line: [number, number] };

/** The families of an index's lines, with their offsets, whichever format `trailer` says it has. */
export async function* readFamilies(
  lines: AsyncIterable<string>,
  trailer: ExportTrailer,
): AsyncGenerator<IndexedFamily> {
  let at = 0;
  let next = trailer.products?.[0] ?? 0;
  for await (const line of lines) {
    const fields = line.split(' ');
    const offset = trailer.index_format === INDEX_FORMAT ? next : Number(fields.shift());
    const [length, extra, ...ids] = fields;
    const bytes = Buffer.byteLength(line) + 1;
    yield { offset, length: Number(length), extra: extra === 'e', ids, line: [at, bytes] };
    at += bytes;
    next = offset + Number(length) + 1;
  }
}

/** Lines handed over to a consumer (an upload) as they come, in pieces of about PIECE_CHARS. */
const PIECE_CHARS = 256 * 1024;

/** A text stream written line by line while something else reads it. */
export class LineChannel implements AsyncIterable<string> {
  private pending: string[] = [];
  private pendingChars = 0;
  private readonly ready: string[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(line: string): void {
    this.pending.push(`${line}\n`);
    this.pendingChars += line.length + 1;
    if (this.pendingChars >= PIECE_CHARS) this.flush();
  }

  end(): void {
    this.flush();
    this.ended = true;
    this.wake?.();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.ready.push(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const piece = this.ready.shift();
      if (piece !== undefined) {
        yield piece;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}

/** An index sink that writes lines to `channel`; `finish` ends it and answers the trailer. */
export function indexWriter(channel: LineChannel): ExportIndexSink & {
  finish(
    trailer: Omit<ExportTrailer, 'head_end' | 'next_boundary' | 'index_format' | 'products'>,
  ): ExportTrailer;
} {
  let headEnd = 0;
  let next: number | null = null;
  let products: [number, number] | null = null;
  return {
    headEnd(offset) {
      headEnd = offset;
    },
    family(family) {
      // A line says where its family is only if the families follow one another, one comma apart.
      if (products !== null && family.offset !== products[1] + 1)
        throw new Error(`a family at ${family.offset} does not follow the one ending at ${products[1]}`);
      products = [products?.[0] ?? family.offset, family.offset + family.length];
      channel.push(familyLine(family));
    },
    boundary(ms) {
      if (next === null || ms < next) next = ms;
    },
    finish(trailer) {
      channel.end();
      return { ...trailer, head_end: headEnd, next_boundary: next, index_format: INDEX_FORMAT, products };
    },
  };
}
