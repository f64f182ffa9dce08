import {
  buildHierarchyItems,
  decodeIdList,
  encodeIdList,
  NODE_LIST_CHUNK,
  RELEASE_NODES,
} from '../../lib/catalog/hierarchy-items';
import { NODE_FILTER, parseNodeFilter } from '../../lib/catalog/nodes';
import type { ProductInput, ReleaseDocument } from '../../lib/catalog/types';
import { validateRelease } from '../../lib/catalog/validate-stream';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PUBLISHED = '2024-06-01T00:00:00.000Z';
const CATALOG = id(777);

function product(n: number, status: 'live' | 'draft', nodeIds: string[]): ProductInput {
  return {
    id: id(n),
    attributes: { name: `P${n}`, sku: `P${n}`, status },
    node_ids: nodeIds,
    files: [],
    variations: [],
    variation_options: {},
  };
}

const [ROOT, A, B, A1, OTHER] = [id(900), id(901), id(902), id(903), id(910)];
const document: Pick<ReleaseDocument, 'nodes' | 'products'> = {
  nodes: [
    { id: ROOT, name: 'Root', parent_id: null, slug: 'the-root', description: 'Top' },
    { id: A, name: 'Äpfel & Birnen', parent_id: ROOT, updated_at: '2024-01-01T00:00:00.000Z' },
    { id: B, name: 'B', parent_id: ROOT },
    { id: A1, name: 'A1', parent_id: A, created_at: '2023-12-01T00:00:00.000Z' },
    { id: OTHER, name: 'Other', parent_id: null },
  ],
  products: [
    product(1, 'live', [A1, ROOT]),
    product(2, 'draft', [A1]),
    product(3, 'live', [A1, A1]),
    product(4, 'live', []),
  ],
};

describe('buildHierarchyItems', () => {
  const built = buildHierarchyItems(document, { catalogId: CATALOG, publishedAt: PUBLISHED });
  const lists = (owner: string, kind: string) =>
    built.lists.filter((list) => list.owner === owner && list.kind === kind).flatMap((list) => list.ids);

  it('lists the hierarchies and all nodes release-wide, in document order', () => {
    expect(built.nodes.get(RELEASE_NODES)).toEqual({
      updated_at: PUBLISHED,
      children: 2,
      descendants: 5,
      products: 0,
    });
    expect(lists(RELEASE_NODES, 'children')).toEqual([ROOT, OTHER]);
    expect(lists(RELEASE_NODES, 'descendants')).toEqual([ROOT, A, B, A1, OTHER]);
  });

  it("keeps each node's children, a hierarchy's descendants and each node's live products (once each)", () => {
    expect(lists(ROOT, 'children')).toEqual([A, B]);
    expect(lists(ROOT, 'descendants')).toEqual([A, B, A1]);
    expect(lists(A, 'children')).toEqual([A1]);
    expect(lists(A, 'descendants')).toEqual([]);
    expect(lists(A1, 'products')).toEqual([id(1), id(3)]);
    expect(lists(ROOT, 'products')).toEqual([id(1)]);
    const root = built.nodes.get(ROOT);
    expect(root).toMatchObject({ children: 2, descendants: 3, products: 1, updated_at: PUBLISHED });
    expect(built.nodes.get(A1)).toMatchObject({ children: 0, descendants: 0, products: 2 });
    // Empty lists take no item.
    expect(built.lists.filter((list) => list.owner === B)).toEqual([]);
  });

  it("keeps each hierarchy's live products: those in any of its nodes or in itself, once each", () => {
    const placed = buildHierarchyItems(
      {
        nodes: document.nodes,
        products: [
          ...document.products,
          product(5, 'live', [B, OTHER, A]),
          product(6, 'draft', [OTHER]),
          product(7, 'live', [OTHER]),
        ],
      },
      { catalogId: CATALOG, publishedAt: PUBLISHED },
    );
    const listed = (owner: string) =>
      placed.lists
        .filter((list) => list.owner === owner && list.kind === 'hierarchy_products')
        .flatMap((list) => list.ids);
    expect(listed(ROOT)).toEqual([id(1), id(3), id(5)]);
    expect(listed(OTHER)).toEqual([id(5), id(7)]);
    expect(placed.nodes.get(ROOT)?.hierarchy_products).toBe(3);
    expect(placed.nodes.get(OTHER)?.hierarchy_products).toBe(2);
    // Nodes below a hierarchy keep no such list.
    expect(placed.nodes.get(A)).not.toHaveProperty('hierarchy_products');
    expect(listed(A)).toEqual([]);
    expect(built.nodes.get(OTHER)?.hierarchy_products).toBe(0);
  });

  it('renders nodes with defaults, breadcrumbs of their ancestors and the hierarchy they belong to', () => {
    const a1 = JSON.parse(built.nodes.get(A1)?.node as string);
    expect(a1.attributes).toEqual({
      name: 'A1',
      description: '',
      slug: 'a1',
      created_at: '2023-12-01T00:00:00.000Z',
      updated_at: PUBLISHED,
      published_at: PUBLISHED,
    });
    expect(a1.meta).toEqual({
      bread_crumb: [ROOT, A],
      has_children: false,
      hierarchy_id: ROOT,
      catalog_id: CATALOG,
    });
    expect(a1.relationships.parent).toEqual({
      data: { type: 'node', id: A },
      links: { related: `/catalog/nodes/${A}` },
    });
    expect(a1.relationships.hierarchy.data).toEqual({ type: 'hierarchy', id: ROOT });
    const a = JSON.parse(built.nodes.get(A)?.node as string);
    expect(a.attributes.slug).toBe('apfel-birnen');
    expect(built.nodes.get(A)?.updated_at).toBe('2024-01-01T00:00:00.000Z');
    expect(built.nodes.get(A)?.hierarchy).toBeUndefined();
  });

  it('renders hierarchies for nodes without parent only', () => {
    const root = JSON.parse(built.nodes.get(ROOT)?.hierarchy as string);
    expect(root).toEqual({
      id: ROOT,
      type: 'hierarchy',
      attributes: {
        name: 'Root',
        description: 'Top',
        slug: 'the-root',
        created_at: PUBLISHED,
        updated_at: PUBLISHED,
        published_at: PUBLISHED,
      },
      relationships: {
        children: { links: { related: `/catalog/hierarchies/${ROOT}/children` } },
        nodes: { links: { related: `/catalog/hierarchies/${ROOT}/nodes` } },
      },
      meta: { has_children: true, catalog_id: CATALOG },
    });
    const rootNode = JSON.parse(built.nodes.get(ROOT)?.node as string);
    expect(rootNode.relationships.parent).toBeUndefined();
    expect(rootNode.meta.bread_crumb).toEqual([]);
    expect(JSON.parse(built.nodes.get(OTHER)?.hierarchy as string).meta.has_children).toBe(false);
  });

  it('splits long lists into NODE_LIST_CHUNK ids per item', () => {
    const many = Array.from({ length: NODE_LIST_CHUNK * 2 + 1 }, (_, n) => ({
      id: id(10_000 + n),
      name: `N${n}`,
      parent_id: ROOT,
    }));
    const big = buildHierarchyItems(
      { nodes: [{ id: ROOT, name: 'Root', parent_id: null }, ...many], products: [] },
      { catalogId: CATALOG, publishedAt: PUBLISHED },
    );
    const children = big.lists.filter((list) => list.owner === ROOT && list.kind === 'children');
    expect(children.map((list) => [list.chunk, list.ids.length])).toEqual([
      [0, NODE_LIST_CHUNK],
      [1, NODE_LIST_CHUNK],
      [2, 1],
    ]);
    expect(children.flatMap((list) => list.ids)).toEqual(many.map((node) => node.id));
    expect(big.nodes.get(ROOT)?.children).toBe(NODE_LIST_CHUNK * 2 + 1);
  });
});

describe('id lists as stored', () => {
  it('round-trip, deflated', () => {
    const ids = Array.from({ length: NODE_LIST_CHUNK }, (_, n) => id(n));
    const bytes = encodeIdList(ids);
    expect(decodeIdList(bytes)).toEqual(ids);
    expect(bytes.byteLength).toBeLessThan(JSON.stringify(ids).length / 2);
    expect(decodeIdList(encodeIdList([]))).toEqual([]);
  });
});

describe('node filters', () => {
  it('take eq and in over id only', () => {
    expect(parseNodeFilter(undefined)).toEqual([]);
    expect(parseNodeFilter(`in(id,${A},${B})`)).toEqual([{ op: 'in', attribute: 'id', values: [A, B] }]);
    expect(parseNodeFilter(`eq(id,${A})`)).toEqual([{ op: 'eq', attribute: 'id', values: [A] }]);
    expect(() => parseNodeFilter('eq(name,A)')).toThrow(/id/);
    expect(NODE_FILTER.description).toBe('id');
  });
});

describe('node fields of a release document', () => {
  const doc = (node: Record<string, unknown>) => ({
    catalog: { name: 'N' },
    nodes: [{ id: ROOT, name: 'Root', ...node }],
    products: [],
  });

  it('normalises timestamps and defaults the description', () => {
    const result = validateRelease(
      doc({ slug: 'root', created_at: '2024-01-01T02:00:00+02:00', updated_at: '2024-02-01T00:00:00Z' }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.document.nodes).toEqual([
      {
        id: ROOT,
        name: 'Root',
        parent_id: null,
        slug: 'root',
        description: '',
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: '2024-02-01T00:00:00.000Z',
      },
    ]);
  });

  it.each([
    ['a slug with a space', { slug: 'a b' }, 'nodes[0].slug'],
    ['a day the calendar lacks', { updated_at: '2024-02-30T00:00:00Z' }, 'nodes[0].updated_at'],
    ['an unknown field', { label: 'x' }, 'nodes[0].label'],
  ])('rejects %s', (_case, node, path) => {
    const result = validateRelease(doc(node));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.path)).toContain(path);
  });
});
