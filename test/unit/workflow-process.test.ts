import { WORKFLOW_HEAP_MB, workflowHeapMb } from '../../local/workflow-process';

describe("a local tool's workflow process heap", () => {
  it('is the default without a limit, and the last limit given in NODE_OPTIONS or the flags', () => {
    expect(workflowHeapMb({}, [])).toBe(WORKFLOW_HEAP_MB);
    expect(workflowHeapMb({ NODE_OPTIONS: '--max-old-space-size=96' }, [])).toBe(96);
    expect(workflowHeapMb({ NODE_OPTIONS: '--enable-source-maps' }, ['--max-old-space-size=64'])).toBe(64);
    expect(workflowHeapMb({ NODE_OPTIONS: '--max-old-space-size=96' }, ['--max-old-space-size=48'])).toBe(48);
  });
});
