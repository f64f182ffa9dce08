import { spawnSync } from 'node:child_process';
import {
  type DocBlock,
  extractBlocks,
  failedCheck,
  parseChecks,
  type SegmentResult,
  segmentResults,
  shellScript,
  silentJsPart,
  splitSegments,
  valueAt,
} from '../support/doc-examples';

const fence = (lang: string, body: string) => `\`\`\`${lang}\n${body}\n\`\`\`\n`;

/** Runs a page's sh and js blocks the way the docs test does (no server) and returns each check's failure. */
function runPage(markdown: string, env: NodeJS.ProcessEnv = {}): string[] {
  const { blocks, problems } = extractBlocks('page.md', markdown);
  expect(problems).toEqual([]);
  const segments = blocks.flatMap((block, index) => (block.skip ? [] : splitSegments(block, index)));
  const run = spawnSync('bash', [], {
    input: shellScript('export GREETING=hello', segments),
    encoding: 'utf8',
    cwd: `${__dirname}/../..`,
  });
  const results = segmentResults(run.stdout, run.stderr);
  return segments.flatMap((segment) => {
    const result = results.get(segment.id);
    if (!result) return [`${segment.line}: did not run`];
    const silent = silentJsPart(segment.block.lang, result);
    return [
      ...segment.checks.flatMap((check) => {
        const failure = failedCheck(check, result, segment.block.lang, env);
        return failure ? [`${segment.line}: ${failure}`] : [];
      }),
      ...(silent ? [`${segment.line}: ${silent}`] : []),
    ];
  });
}

describe('docs examples: extracting blocks', () => {
  it('finds sh and js blocks with their lines, skips marked ones, ignores data blocks', () => {
    const page = [
      '# Title',
      fence('sh', 'echo hi\n# => "hi"'),
      fence('json', '{ "a": 1 }'),
      fence('js', '// not run in CI: needs AWS\nawait deploy();'),
      fence('text', 'npm run admin -- create-key [--json]'),
    ].join('\n');
    const { blocks, problems } = extractBlocks('p.md', page);
    expect(problems).toEqual([]);
    expect(blocks.map((block) => [block.lang, block.line, block.skip])).toEqual([
      ['sh', 3, undefined],
      ['js', 12, 'needs AWS'],
    ]);
  });

  it.each([
    [fence('ts', 'const a = 1;'), 'a `ts` block is not run'],
    [fence('sh', 'echo hi'), 'no `# =>` line says what this block prints'],
    [fence('sh', '# not run in CI:\necho hi'), 'needs the reason'],
    [fence('sh', 'echo hi\n# not run in CI: later'), "must be the block's first line"],
    [fence('sh', 'echo hi\n# => 20x0 things'), 'cannot read the check'],
    ['```sh\necho hi\n# => "hi"\n``` and text\n', 'a closing fence stands alone'],
  ])('reports a block that breaks the convention: %p', (page, problem) => {
    expect(extractBlocks('p.md', page).problems.join('\n')).toContain(problem);
  });

  it('splits a block at its check lines', () => {
    const block: DocBlock = {
      file: 'p.md',
      line: 10,
      lang: 'sh',
      source: 'a\n# => 200\nb\nc\n# => "x"\nd\n',
    };
    expect(splitSegments(block, 3).map((segment) => [segment.id, segment.line, segment.code])).toEqual([
      ['3.0', 11, 'a'],
      ['3.1', 14, 'b\nc'],
      ['3.2', 15, 'd'],
    ]);
  });

  it('parses every check form', () => {
    expect(
      parseChecks(
        '200, exit 2, "a, b", data[0].id = $MAPPING_ID, meta.total = 4, data.name = My shop, data.x',
        'w',
        'sh',
      ),
    ).toEqual([
      { kind: 'status', raw: '200', status: 200 },
      { kind: 'exit', raw: 'exit 2', code: 2 },
      { kind: 'contains', raw: '"a, b"', text: 'a, b' },
      { kind: 'equals', raw: 'data[0].id = $MAPPING_ID', path: 'data[0].id', value: { $env: 'MAPPING_ID' } },
      { kind: 'equals', raw: 'meta.total = 4', path: 'meta.total', value: 4 },
      { kind: 'equals', raw: 'data.name = My shop', path: 'data.name', value: 'My shop' },
      { kind: 'present', raw: 'data.x', path: 'data.x' },
    ]);
    expect(() => parseChecks('200', 'w', 'js')).toThrow('a status check needs a curl command');
  });

  it('reads values at paths', () => {
    expect(valueAt({ data: [{ id: 'a' }, { id: 'b' }] }, 'data[1].id')).toBe('b');
    expect(valueAt({ data: [1, 2] }, 'data.length')).toBe(2);
    expect(valueAt({ data: null }, 'data.id')).toBeUndefined();
  });
});

describe('docs examples: running and checking', () => {
  it('passes checks that hold and fails those that do not, for sh and js', () => {
    const page = [
      fence(
        'sh',
        `echo '{"data":{"n":4,"who":"hello"}}'\n# => data.n = 4, data.who = $GREETING, data.n, "who"\nfalse\n# => exit 1`,
      ),
      fence(
        'js',
        `const page = { total: 5, items: [1, 2] };\nconsole.log(page.total, page.items);\n// => page.total = 5, page.items.length = 2`,
      ),
      fence(
        'sh',
        `echo '{"data":{"n":4}}'\n# => data.n = 5, data.missing, "absent", exit 3\necho done\n# => "done"`,
      ),
      fence('js', `const x = { a: 1 };\nconsole.log(x);\n// => x.a = 2, x.b.c`),
    ].join('\n');
    const failures = runPage(page, {});
    expect(failures).toEqual([
      '16: expected data.n = 5, got 4',
      '16: expected data.missing to be set, it is undefined',
      '16: expected the output to contain "absent"',
      '16: expected exit 3, got 0',
      '24: expected x.a = 2, got 1',
      "24: x.b.c: TypeError: Cannot read properties of undefined (reading 'c')",
    ]);
  });

  it('stops at the first failing command and names the part that did not run', () => {
    const failures = runPage(fence('sh', 'echo a\n# => "a"\nfalse\necho b\n# => "b"\necho c\n# => "c"'));
    expect(failures).toEqual(['6: did not run', '8: did not run']);
  });

  it('fails a js part that prints nothing, since a reader would see nothing of what it checks', () => {
    const page = fence('js', `const quiet = { n: 1 };\n// => quiet.n = 1`);
    expect(runPage(page)).toEqual([
      '3: prints nothing, so a reader cannot see what its `// =>` line checks: console.log the values it names',
    ]);
    expect(runPage(fence('js', `const loud = { n: 1 };\nconsole.log(loud.n);\n// => loud.n = 1`))).toEqual(
      [],
    );
  });

  it("takes the HTTP status of a segment's last curl response", () => {
    const result: SegmentResult = {
      stdout: '',
      stderr: '',
      exit: 0,
      status: 404,
      values: new Map(),
      variables: new Map(),
    };
    expect(failedCheck({ kind: 'status', raw: '200', status: 200 }, result, 'sh', {})).toBe(
      'expected HTTP 200, the last response was 404',
    );
    expect(failedCheck({ kind: 'status', raw: '404', status: 404 }, result, 'sh', {})).toBeUndefined();
  });
});
