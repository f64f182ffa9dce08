import { describeAlternation, summarise } from '../../bench/alternate';
import type { ColdStart } from '../../bench/cold-start';

const run = (wall: number, node: number, init: number, auth: number): ColdStart => ({
  median_ms: wall,
  node_baseline_ms: node,
  phases: { boot: 30, init, before_handler: auth, handler: 3, response: 1, exit: 12 },
});

describe('bench/alternate', () => {
  it('takes each side’s medians: the wall over its own node -e 0, and the phases', () => {
    const side = summarise([run(90, 40, 20, 15), run(80, 45, 18, 14), run(100, 41, 22, 30)]);
    expect(side).toEqual({ over: 50, init: 20, auth_limiter: 15, handler: 3, exit: 12 });
  });

  it('says each function’s medians before and after', () => {
    const text = describeAlternation('abc123', {
      'list-currencies': {
        runs: 61,
        ref: { over: 50.4, init: 17.2, auth_limiter: 19.9, handler: 4, exit: 13.3 },
        now: { over: 48.1, init: 15.2, auth_limiter: 19.8, handler: 4.1, exit: 13 },
      },
    });
    expect(text).toBe(
      'Cold starts, abc123 and the working tree alternating (medians, ms)\n' +
        '  list-currencies (61 each): over node -e 0 50.4 -> 48.1; import+init 17.2 -> 15.2, auth+limiter 19.9 -> 19.8, handler 4 -> 4.1, exit 13.3 -> 13\n',
    );
  });
});
