import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Temporary directories of one test file: `const temp = useTempDirs()` at its top, then
 * `temp.make('a2a-thing-')` in a test or a hook. They are removed once the file's tests are done,
 * Temporal dev server databases included.
 */
export function useTempDirs(): { make(prefix: string): string } {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    make(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
