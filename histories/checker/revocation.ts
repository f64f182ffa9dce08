/**
 * Tokens outliving their key: a write made with a token of key K must not succeed when a delete of K
 * had completed (successfully) before the write was invoked. This is a real-time rule, not a search: no
 * linearization can excuse it.
 */
export interface TokenWrite {
  /** The operation's id in the history. */
  id: number;
  store: string;
  /** The key whose token authorised the write. */
  tokenKey: string;
  call: number;
  /** Whether the write succeeded (2xx). Indeterminate writes are not evidence either way. */
  succeeded: boolean;
}

export interface KeyDeletion {
  id: number;
  store: string;
  key: string;
  /** Completion time of a delete that answered 204 (Infinity when its answer was lost: never "completed"). */
  ret: number;
}

export interface RevocationViolation {
  write: TokenWrite;
  deletion: KeyDeletion;
}

/** Writes invoked with a token whose key's delete had completed: each must have been refused. */
export function revokedTokenWrites(writes: TokenWrite[], deletions: KeyDeletion[]): TokenWrite[] {
  const deletedAt = firstDeletions(deletions);
  return writes.filter((write) => {
    const deletion = deletedAt.get(`${write.store}/${write.tokenKey}`);
    return deletion !== undefined && deletion.ret < write.call;
  });
}

function firstDeletions(deletions: KeyDeletion[]): Map<string, KeyDeletion> {
  const deletedAt = new Map<string, KeyDeletion>();
  for (const deletion of deletions) {
    const id = `${deletion.store}/${deletion.key}`;
    const earlier = deletedAt.get(id);
    if (!earlier || deletion.ret < earlier.ret) deletedAt.set(id, deletion);
  }
  return deletedAt;
}

export function checkRevocation(writes: TokenWrite[], deletions: KeyDeletion[]): RevocationViolation[] {
  const deletedAt = firstDeletions(deletions);
  const violations: RevocationViolation[] = [];
  for (const write of writes) {
    if (!write.succeeded) continue;
    const deletion = deletedAt.get(`${write.store}/${write.tokenKey}`);
    if (deletion && deletion.ret < write.call) violations.push({ write, deletion });
  }
  return violations;
}
