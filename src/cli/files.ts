/**
 * Crash-proof files for the CLI:
 *   - checkOutPath: `--out` is checked before the first fit (its directory exists, it is not a
 *     directory, both are writable), so a typo never costs a run;
 *   - writeFileAtomic: temp file in the same directory, fsync, rename (then fsync the directory),
 *     so a kill at any moment leaves the old file or the new one, never a truncated one;
 *   - Journal: `<out>.journal`, one JSON line per finished fit (its cells), appended and fsynced as
 *     each fit ends; a rerun with the same plan resumes from it, and it is removed once the result
 *     file is written. A torn last line (a kill mid-append) is ignored.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ExecutedCell } from '../lib/suite/executor.ts';
import { CliError } from './args.ts';

export function checkOutPath(out: string, flag = '--out'): void {
  const path = resolve(out);
  const dir = dirname(path);
  let dirStat;
  try {
    dirStat = statSync(dir);
  } catch {
    throw new CliError(
      `${flag} ${out}: the directory ${dir} does not exist; create it first or choose another path.`,
    );
  }
  if (!dirStat.isDirectory()) throw new CliError(`${flag} ${out}: ${dir} is not a directory.`);
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new CliError(
      `${flag} ${out} is a directory; give a file path such as ${join(out, 'results.json')}.`,
    );
  }
  try {
    accessSync(dir, constants.W_OK);
    if (existsSync(path)) accessSync(path, constants.W_OK);
  } catch {
    throw new CliError(
      `${flag} ${out}: not writable (check the permissions of ${existsSync(path) ? path : dir}).`,
    );
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot open a directory for fsync; the rename is still atomic there.
  }
}

/** Writes `text` to `path` so that readers see the old content or the new, never a part. */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(resolve(path));
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
  fsyncDir(dir);
}

export const journalPath = (out: string) => `${out}.journal`;

interface JournalHeader {
  journal: 'rac-bench-run/1';
  /** What must match for a resume: the plan and the shard. */
  signature: string;
}

function parseHeader(line: string | undefined): JournalHeader | null {
  try {
    const h = JSON.parse(line ?? '') as JournalHeader;
    return h && h.journal === 'rac-bench-run/1' && typeof h.signature === 'string' ? h : null;
  } catch {
    return null;
  }
}

/** The append-only checkpoint of a CLI run. */
export class Journal {
  readonly path: string;
  #fd: number | null = null;

  constructor(out: string) {
    this.path = journalPath(out);
  }

  /**
   * Cells stored by an earlier, interrupted run of the same plan (validated by `check`; lines
   * that do not parse, or fail the check, are dropped and reported in `dropped`). Throws when the
   * journal belongs to another plan.
   */
  read(
    signature: string,
    check: (cell: ExecutedCell) => ExecutedCell,
  ): { cells: ExecutedCell[]; dropped: number } {
    if (!existsSync(this.path)) return { cells: [], dropped: 0 };
    const lines = readFileSync(this.path, 'utf8').split('\n');
    const header = parseHeader(lines[0]);
    if (!header) {
      // Killed while writing the header: nothing was stored yet.
      if (lines.slice(1).every((l) => l.trim() === '')) return { cells: [], dropped: 0 };
      throw new CliError(`${this.path} is not a rac-bench journal; move it away or choose another --out.`);
    }
    if (header.signature !== signature) {
      throw new CliError(
        `${this.path} holds an interrupted run of a different plan; rerun that plan to finish it, or delete the journal.`,
      );
    }
    const byKey = new Map<string, ExecutedCell>();
    let dropped = 0;
    for (const line of lines.slice(1)) {
      if (line.trim() === '') continue;
      let batch: ExecutedCell[];
      try {
        batch = (JSON.parse(line) as { cells: ExecutedCell[] }).cells;
        if (!Array.isArray(batch)) throw new Error('no cells');
      } catch {
        dropped++; // a torn line from a kill mid-append
        continue;
      }
      for (const c of batch) {
        try {
          const ok = check(c);
          byKey.set(ok.key, ok);
        } catch {
          dropped++;
        }
      }
    }
    return { cells: [...byKey.values()], dropped };
  }

  /** Opens for appending; a new journal gets its header first. */
  open(signature: string): void {
    const fresh = !existsSync(this.path) || !parseHeader(readFileSync(this.path, 'utf8').split('\n')[0]);
    this.#fd = openSync(this.path, fresh ? 'w' : 'a');
    if (fresh) this.#write({ journal: 'rac-bench-run/1', signature } satisfies JournalHeader);
    else this.#write(null); // a torn last line gets its own line end, so the next entry parses
  }

  append(cells: ExecutedCell[]): void {
    this.#write({ cells });
  }

  #write(entry: object | null): void {
    if (this.#fd === null) throw new Error('Journal: not open.');
    writeSync(this.#fd, entry === null ? '\n' : `${JSON.stringify(entry)}\n`);
    fsyncSync(this.#fd);
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  /** The run's file is written: the checkpoint is no longer needed. */
  remove(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }
}
