import { parseKeyFilter, planKeyFilter } from '../../lib/application-keys/filter';
import { BadRequestError } from '../../lib/http/errors';
import type { ApplicationKeyRecord } from '../../lib/store/application-key-repository';

const key = (name: string, client_id: string) => ({ name, client_id }) as ApplicationKeyRecord;

describe('parseKeyFilter', () => {
  it('takes eq and in on name and client_id, with the catalog grammar (quotes, AND), case kept', () => {
    expect(parseKeyFilter('eq(name,"Web, EU"):in(client_id,Abc,def)')).toEqual([
      { op: 'eq', attribute: 'name', values: ['Web, EU'] },
      { op: 'in', attribute: 'client_id', values: ['Abc', 'def'] },
    ]);
  });

  it.each(['eq(sku,A)', 'eq(tags,a)', 'in(id,a)', 'gt(name,a)'])('refuses %p with source filter', (text) => {
    expect(() => parseKeyFilter(text)).toThrow(BadRequestError);
  });
});

describe('planKeyFilter', () => {
  it('reads every key for a name filter and tests each exactly', () => {
    const plan = planKeyFilter(parseKeyFilter('in(name,Web,App)'));
    expect(plan.clientIds).toBeUndefined();
    expect(plan.matches(key('Web', 'a'))).toBe(true);
    expect(plan.matches(key('web', 'a'))).toBe(false);
  });

  it('looks up only the client ids every client_id expression allows, and still tests the rest', () => {
    const plan = planKeyFilter(parseKeyFilter('in(client_id,a,b,c):eq(client_id,b):eq(name,Web)'));
    expect(plan.clientIds).toEqual(['b']);
    expect(plan.matches(key('Web', 'b'))).toBe(true);
    expect(plan.matches(key('App', 'b'))).toBe(false);
    expect(planKeyFilter(parseKeyFilter(`eq(client_id,${'x'.repeat(256)})`)).clientIds).toEqual([]);
  });
});
