import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileDeclaredSchemas, compileSchema } from '../../lib/schema/index';

/*
 * Validators compile on first use (lib/schema), so a schema with a keyword the compiler refuses would only
 * throw when a request first needs it. Every module under lib/ that declares validators is imported here and
 * every schema it declared is compiled at once.
 */

const LIB = join(__dirname, '../../lib');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('the validators every module declares', () => {
  it('all compile', async () => {
    const declaring = sources(LIB).filter(
      (path) => !path.includes('/schema/') && readFileSync(path, 'utf8').includes('compileSchema('),
    );
    expect(declaring.map((path) => relative(LIB, path))).toEqual(
      expect.arrayContaining([
        'validation/product.ts',
        'validation/currency.ts',
        'catalog/child-list-response.ts',
      ]),
    );
    for (const path of declaring) await import(path);
    expect(compileDeclaredSchemas()).toBeGreaterThanOrEqual(40);
  });

  it('a bad one among them throws there', () => {
    compileSchema({ type: 'string', format: 'uuid', uniqueItems: true } as Parameters<
      typeof compileSchema
    >[0]);
    expect(() => compileDeclaredSchemas()).toThrow('schema keyword uniqueItems is not supported');
  });
});
