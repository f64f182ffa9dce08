import { DERIVED_PERCENT, progressOf } from '../../lib/store/pcm-repository';

/**
 * A release's `percent_completed` while it publishes: the step it last recorded, then the share of its
 * items written, which each Write step adds to on its own (no step reads another's figure).
 */
describe('progressOf', () => {
  it('is the step recorded last until an item is written', () => {
    expect(progressOf({})).toBe(0);
    expect(progressOf({ percent_completed: 12 })).toBe(12);
    expect(progressOf({ percent_completed: DERIVED_PERCENT, total_items: 400, written_items: 0 })).toBe(
      DERIVED_PERCENT,
    );
  });

  it('goes from the derived figure to 99 with the share of the items written, whatever order the writes add in', () => {
    const at = (written: number) =>
      progressOf({ percent_completed: DERIVED_PERCENT, total_items: 400, written_items: written });
    expect([at(1), at(100), at(200), at(399), at(400)]).toEqual([20, 39, 59, 98, 99]);
    // A retried Write adds its items again: the figure stops at 99, never past it.
    expect(at(800)).toBe(99);
  });

  it('never goes below the step recorded, and a release without items keeps it', () => {
    expect(progressOf({ percent_completed: 50, total_items: 400, written_items: 1 })).toBe(50);
    expect(progressOf({ percent_completed: DERIVED_PERCENT, total_items: 0, written_items: 3 })).toBe(
      DERIVED_PERCENT,
    );
  });
});
