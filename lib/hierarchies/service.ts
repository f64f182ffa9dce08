import { ConflictError, NotFoundError } from '../http/errors';
import { uuidv7 } from '../ids';
import { deleteSubtrees } from '../nodes/delete';
import type { WriteCaller } from '../store/caller-check';
import {
  type Hierarchy,
  HierarchyChangedError,
  HierarchySlugTakenError,
  hierarchyRepository,
} from '../store/hierarchy-repository';
import { checkHierarchySize, type HierarchyAttributes } from '../validation/hierarchy';

/** The platform's hierarchies (docs/hierarchies.md): slugs unique per store, 404 for anything not there. */

/** Rounds of read, apply and conditional write before a write that keeps losing gives up (409). */
const ROUNDS = 8;

const slugTaken = () =>
  new ConflictError('data.attributes.slug: Must be unique amongst hierarchies.', 'data.attributes.slug');

export async function hierarchyOf(storeId: string, hierarchyId: string): Promise<Hierarchy> {
  const hierarchy = await hierarchyRepository.get(storeId, hierarchyId);
  if (!hierarchy || hierarchy.deleting) throw new NotFoundError('hierarchy not found');
  return hierarchy;
}

export async function createHierarchy(
  storeId: string,
  attributes: HierarchyAttributes,
  caller: WriteCaller,
): Promise<Hierarchy> {
  const at = new Date().toISOString();
  const hierarchy: Hierarchy = {
    ...attributes,
    description: attributes.description ?? '',
    id: uuidv7(),
    created_at: at,
    updated_at: at,
    version: 1,
  };
  try {
    await hierarchyRepository.create(storeId, hierarchy, caller);
  } catch (error) {
    throw error instanceof HierarchySlugTakenError ? slugTaken() : error;
  }
  return hierarchy;
}

/**
 * Reads the hierarchy, lets `write` apply to it, and again from a fresh read when it changed meanwhile:
 * 404 once it is gone, 409 when it keeps changing.
 */
async function withFreshHierarchy<T>(
  storeId: string,
  hierarchyId: string,
  write: (hierarchy: Hierarchy) => Promise<T>,
): Promise<T> {
  for (let round = 0; round < ROUNDS; round += 1) {
    const hierarchy = await hierarchyOf(storeId, hierarchyId);
    try {
      return await write(hierarchy);
    } catch (error) {
      if (error instanceof HierarchyChangedError) continue;
      throw error instanceof HierarchySlugTakenError ? slugTaken() : error;
    }
  }
  throw new ConflictError('write conflict detected: the hierarchy kept changing, retry');
}

/** Applies the attributes sent (the others stay) to the hierarchy as it is now. */
export function updateHierarchy(
  storeId: string,
  hierarchyId: string,
  changes: Partial<HierarchyAttributes>,
  caller: WriteCaller,
): Promise<Hierarchy> {
  return withFreshHierarchy(storeId, hierarchyId, async (before) => {
    const after: Hierarchy = {
      ...before,
      ...changes,
      updated_at: new Date().toISOString(),
      version: before.version + 1,
    };
    const { id: _id, created_at: _c, updated_at: _u, version: _v, ...attributes } = after;
    checkHierarchySize(attributes);
    await hierarchyRepository.replace(storeId, before, after, caller);
    return after;
  });
}

/**
 * Marks the hierarchy as being deleted (from then on it reads as gone and takes no nodes), deletes its
 * nodes and their attachments in batches (never one unbounded transaction), then the hierarchy and its
 * slug claim. A delete cut short leaves the hierarchy marked, with fewer nodes: the next DELETE of it (the
 * mark makes it answer 404 to every other route) picks up where it stopped and answers 204.
 */
export async function deleteHierarchy(
  storeId: string,
  hierarchyId: string,
  caller: WriteCaller,
): Promise<void> {
  for (let round = 0; round < ROUNDS; round += 1) {
    const hierarchy = await hierarchyRepository.get(storeId, hierarchyId);
    if (!hierarchy) throw new NotFoundError('hierarchy not found');
    try {
      let marked = hierarchy;
      if (!hierarchy.deleting) {
        marked = { ...hierarchy, deleting: true, version: hierarchy.version + 1 };
        await hierarchyRepository.replace(storeId, hierarchy, marked, caller);
      }
      await deleteSubtrees(storeId, hierarchyId, undefined, caller);
      await hierarchyRepository.delete(storeId, marked, caller);
      return;
    } catch (error) {
      if (!(error instanceof HierarchyChangedError)) throw error;
    }
  }
  throw new ConflictError('write conflict detected: the hierarchy kept changing, retry');
}
