import { ReadableStream as StandIn } from '../../lib/runtime/stream-web';

/** The bundles' stand-in for `node:stream/web`: the real `ReadableStream` behind `instanceof` and `new`. */

describe('the ReadableStream stand-in', () => {
  it('recognises real web streams and nothing else', () => {
    expect(new globalThis.ReadableStream() instanceof StandIn).toBe(true);
    for (const other of [{}, 'body', null, Buffer.from('x'), new (class ReadableStream {})()])
      expect(other instanceof StandIn).toBe(false);
  });

  it('constructs a real web stream', async () => {
    const stream = new StandIn({
      start(controller) {
        controller.enqueue('chunk');
        controller.close();
      },
    });
    expect(stream).toBeInstanceOf(globalThis.ReadableStream);
    const chunks: unknown[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<unknown>) chunks.push(chunk);
    expect(chunks).toEqual(['chunk']);
  });
});
