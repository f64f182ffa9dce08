import type { AuthoredSources } from '../../store/pcm-repository';
import type { ExportedFamily, ExportIndexSink } from './export';

/**
 * An authored release's export index: where each family's text sits in the document Export wrote, kept
 * beside that document while the release is kept, so that the next release's Export rewrites only the
 * families that changed (lib/catalog/pipeline/export-splice.ts). One line a family, `<offset> <length>
 * <a|e> <id> <id>…` (`e`: written as a bundle's component); beside it a trailer (JSON): what the next
 * export checks before it builds on this one.
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
}

export const familyLine = (family: ExportedFamily) =>
  `${family.offset} ${family.length} ${family.extra ? 'e' : 'a'} ${family.ids.join(' ')}`;

export function parseFamilyLine(line: string): ExportedFamily {
  const [offset, length, extra, ...ids] = line.split(' ');
  return { offset: Number(offset), length: Number(length), extra: extra === 'e', ids };
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
  finish(trailer: Omit<ExportTrailer, 'head_end' | 'next_boundary'>): ExportTrailer;
} {
  let headEnd = 0;
  let next: number | null = null;
  return {
    headEnd(offset) {
      headEnd = offset;
    },
    family(family) {
      channel.push(familyLine(family));
    },
    boundary(ms) {
      if (next === null || ms < next) next = ms;
    },
    finish(trailer) {
      channel.end();
      return { ...trailer, head_end: headEnd, next_boundary: next };
    },
  };
}
