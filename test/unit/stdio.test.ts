import { descriptors, resetStdio, STDIO_WRITER, type StdioWriter, writeOut } from '../../lib/runtime/stdio';

const host = globalThis as Record<symbol, unknown>;
const testsWriter = host[STDIO_WRITER];

/** Refuses a write as a full non-blocking pipe does. */
const eagain = () =>
  Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' });

describe('the functions’ output', () => {
  let streamWrites: { stream: string; text: string }[];
  beforeEach(() => {
    // The test workers register a writer (test/support/env.ts): these tests take the descriptors' path.
    delete host[STDIO_WRITER];
    resetStdio();
    streamWrites = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
        streamWrites.push({ stream, text: Buffer.from(chunk).toString('utf8') });
        return true;
      });
    }
  });
  afterEach(() => {
    jest.restoreAllMocks();
    resetStdio();
    host[STDIO_WRITER] = testsWriter;
  });

  it('goes to descriptor 1 or 2 whole, without the streams', () => {
    const written: { fd: number; text: string }[] = [];
    jest.spyOn(descriptors, 'writeSync').mockImplementation((fd, bytes, offset) => {
      written.push({ fd, text: Buffer.from(bytes.subarray(offset)).toString('utf8') });
      return bytes.length - offset;
    });
    writeOut('stdout', 'one ✓\n');
    writeOut('stderr', 'two\n');
    expect(written).toEqual([
      { fd: 1, text: 'one ✓\n' },
      { fd: 2, text: 'two\n' },
    ]);
    expect(streamWrites).toEqual([]);
  });

  it('writes on from where a descriptor stopped when it takes part of a line', () => {
    const offsets: number[] = [];
    jest.spyOn(descriptors, 'writeSync').mockImplementation((_fd, bytes, offset) => {
      offsets.push(offset);
      return Math.min(4, bytes.length - offset);
    });
    writeOut('stdout', '0123456789\n');
    expect(offsets).toEqual([0, 4, 8]);
    expect(streamWrites).toEqual([]);
  });

  it('hands the rest of a line to the stream when the descriptor refuses it, and the next lines too', () => {
    const writeSync = jest
      .spyOn(descriptors, 'writeSync')
      .mockImplementationOnce(() => 6)
      .mockImplementationOnce(() => {
        throw eagain();
      });
    writeOut('stdout', 'first line\n');
    writeOut('stdout', 'second line\n');
    // stderr is a descriptor of its own: still written directly.
    writeSync.mockImplementation((_fd, bytes, offset) => bytes.length - offset);
    writeOut('stderr', 'to stderr\n');
    expect(streamWrites).toEqual([
      { stream: 'stdout', text: 'line\n' },
      { stream: 'stdout', text: 'second line\n' },
    ]);
    expect(writeSync).toHaveBeenCalledTimes(3);
    expect(writeSync.mock.calls[2]?.[0]).toBe(2);
  });

  it('never loops on a descriptor that takes nothing', () => {
    jest.spyOn(descriptors, 'writeSync').mockImplementation(() => 0);
    writeOut('stderr', 'line\n');
    expect(streamWrites).toEqual([{ stream: 'stderr', text: 'line\n' }]);
  });

  it('gives every line to the writer a host registered', () => {
    const writeSync = jest.spyOn(descriptors, 'writeSync');
    const taken: [string, string][] = [];
    host[STDIO_WRITER] = ((stream, text) => taken.push([stream, text])) satisfies StdioWriter;
    writeOut('stdout', 'a\n');
    writeOut('stderr', 'b\n');
    expect(taken).toEqual([
      ['stdout', 'a\n'],
      ['stderr', 'b\n'],
    ]);
    expect(writeSync).not.toHaveBeenCalled();
    expect(streamWrites).toEqual([]);
  });
});
