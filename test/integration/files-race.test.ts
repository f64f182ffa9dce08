import { handler as createFile } from '../../functions/create-file/handler';
import { handler as deleteFile } from '../../functions/delete-file/handler';
import { getDocumentClient } from '../../lib/store/client';
import { fileRepository } from '../../lib/store/file-repository';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, invoke, SHARED_STORE_RATE_LIMIT, tokenFor } from '../support/fixtures';

// DynamoDB's transaction conflicts, which DynamoDB Local never shows: every creation and deletion of a
// store's files moves the store's one file counter, so concurrent ones conflict and must be retried.
let conflicts: ConflictEmulator;
beforeAll(() => {
  conflicts = emulateConflicts(getDocumentClient());
});
afterAll(() => conflicts.remove());

const JSON_HEADERS = { 'content-type': 'application/json' };

it('concurrent creations and deletions of one store all succeed, and the count is the files left', async () => {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const token = await tokenFor(store);
  const create = (n: number) =>
    invoke(createFile, {
      method: 'POST',
      path: '/v2/files',
      headers: bearer(token, JSON_HEADERS),
      body: JSON.stringify({ file_location: `https://cdn.example.com/race/${n}.png` }),
    });
  const first = await Promise.all(Array.from({ length: 6 }, (_, n) => create(n)));
  expect(first.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201]);
  const doomed = first.slice(0, 3).map((res) => res.body.data.id as string);
  const results = await Promise.all([
    ...doomed.map((id) =>
      invoke(deleteFile, {
        method: 'DELETE',
        path: `/v2/files/${id}`,
        pathParameters: { file_id: id },
        headers: bearer(token),
      }),
    ),
    ...[6, 7, 8].map((n) => create(n)),
  ]);
  expect(results.map((res) => res.status)).toEqual([204, 204, 204, 201, 201, 201]);
  expect(conflicts.conflicts.transactions).toBeGreaterThan(0);
  const files = await fileRepository.all(store.store.id);
  expect(files.map((file) => file.file_name).sort()).toEqual([
    '3.png',
    '4.png',
    '5.png',
    '6.png',
    '7.png',
    '8.png',
  ]);
  expect(await fileRepository.count(store.store.id)).toBe(6);
});
