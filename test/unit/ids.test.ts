import { derivedUuidv7, isUuid, uuidv7, uuidv7After } from '../../lib/ids';

/** UUID v7s: random ones sort by creation; derived ones are the same for the same time and seed. */

const time = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('uuidv7', () => {
  it('is a version 7 UUID of the time given, increasing within one millisecond', () => {
    const ids = Array.from({ length: 50 }, () => uuidv7(1_700_000_000_000));
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('uuidv7After', () => {
  it('is a new UUID v7 after the one given, even one from a clock a minute ahead', () => {
    const now = uuidv7();
    const ahead = derivedUuidv7(Date.now() + 60_000, 'another process');
    for (const last of [undefined, now, ahead, ahead.toUpperCase()]) {
      const next = uuidv7After(last);
      expect([isUuid(next), next[14]]).toEqual([true, '7']);
      if (last !== undefined) expect(next > last.toLowerCase()).toBe(true);
    }
    expect(time(uuidv7After(ahead))).toBe(time(ahead) + 1);
  });
});

describe('derivedUuidv7', () => {
  it('is the same for the same time and seed, and a version 7 UUID of that time', () => {
    const id = derivedUuidv7(1_700_000_000_000, 'parent|1|a+b');
    expect(derivedUuidv7(1_700_000_000_000, 'parent|1|a+b')).toBe(id);
    expect(isUuid(id)).toBe(true);
    expect([id[14], time(id)]).toEqual(['7', 1_700_000_000_000]);
    expect('89ab').toContain(id[19]);
  });

  it('differs for another seed or time', () => {
    const id = derivedUuidv7(1_700_000_000_000, 'parent|1|a+b');
    expect(derivedUuidv7(1_700_000_000_000, 'parent|2|a+b')).not.toBe(id);
    expect(derivedUuidv7(1_700_000_000_001, 'parent|1|a+b')).not.toBe(id);
  });
});
