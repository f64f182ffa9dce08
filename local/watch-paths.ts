import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';

export interface PathWatcher {
  close(): void;
}

/**
 * Calls `onChange` on any change to a file under the `roots` folders, by path: it watches every folder
 * (not every file), so a file replaced by a new one (an editor's atomic save, write-and-rename,
 * delete-and-create, `git checkout`, `sed -i`) is seen like an edit in place, and so are its later edits.
 * Node's recursive `fs.watch` on Linux follows each file's inode and loses a replaced file. A folder
 * created later is watched from its first event; one replaced by a new folder is watched again.
 */
export function watchPaths(roots: readonly string[], onChange: () => void): PathWatcher {
  const watched = new Map<string, { watcher: FSWatcher; ino: number }>();
  let closed = false;

  const forget = (dir: string) => {
    for (const [path, entry] of watched)
      if (path === dir || path.startsWith(`${dir}/`)) {
        entry.watcher.close();
        watched.delete(path);
      }
  };

  /** Watches `dir` and the folders under it that are not watched yet (or whose folder was replaced). */
  const scan = (dir: string) => {
    if (closed) return;
    let ino: number;
    try {
      ino = statSync(dir).ino;
    } catch {
      forget(dir);
      return;
    }
    const current = watched.get(dir);
    if (current && current.ino !== ino) forget(dir);
    if (!watched.has(dir)) {
      try {
        const watcher = watch(dir, () => {
          onChange();
          scan(dir);
        });
        watcher.on('error', () => forget(dir));
        watched.set(dir, { watcher, ino });
      } catch {
        return;
      }
    }
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return;
    }
    for (const [path] of watched)
      if (path.startsWith(`${dir}/`) && !path.slice(dir.length + 1).includes('/'))
        if (!entries.includes(path.slice(dir.length + 1))) forget(path);
    for (const name of entries) scan(join(dir, name));
  };

  for (const root of roots) scan(root);
  return {
    close() {
      closed = true;
      for (const { watcher } of watched.values()) watcher.close();
      watched.clear();
    },
  };
}
