/**
 * Crash-proof files for the CLI:
 *   - checkOutPath: `--out` is checked before the first fit (its directory exists, it is not a
 *     directory, both are writable), so a typo never costs a run;
 *   - writeFileAtomic: temp file in the same directory, written until every byte is out (a short
 *     write is not success: a full disk ends in ENOSPC, never in a cut file), fsync, size check,
 *     rename (then fsync the directory), so a kill or a full disk at any moment leaves the old
 *     file or the new one, never a truncated one, and never a stray temp file;
 *   - writeFileVerified: the same, then the renamed file is read back and checked, so a caller
 *     deletes what it could rebuild the file from (the journal) only once the file is sound;
 *   - Journal: `<out>.journal`, one JSON line per finished fit (its cells), appended and fsynced as
 *     each fit ends; a rerun with the same plan resumes from it, and it is removed once the result
 *     file is written. A torn last line (a kill mid-append) is ignored.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
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

/**
 * The one system call the writers here make, injectable so a test can play a full disk: writes
 * up to `length` bytes of `buffer` from `offset` at the file's current position and returns how
 * many it wrote (POSIX allows fewer than asked: a nearly full disk, a signal).
 */
export type WriteBytes = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

const nodeWrite: WriteBytes = (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length);

/**
 * Writes every byte of `bytes` to `fd`, looping over short writes. A write that makes no progress
 * is a full disk (the next call would throw ENOSPC, or never end), so it throws instead of looping.
 */
export function writeAll(fd: number, bytes: Uint8Array, write: WriteBytes = nodeWrite): void {
  let at = 0;
  while (at < bytes.length) {
    const n = write(fd, bytes, at, bytes.length - at);
    if (!Number.isInteger(n) || n <= 0) {
      throw Object.assign(
        new Error(`ENOSPC: no space left on device, write (${at} of ${bytes.length} bytes written)`),
        { code: 'ENOSPC' },
      );
    }
    at += n;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

/**
 * Writes `text` (or raw bytes) to `path` so that readers see the old content or the new, never a
 * part: on any failure (ENOSPC, a short write, a size that does not match) the temp file is
 * removed, `path` is left as it was, and a CliError says so. `write` is for tests (a full disk
 * without root).
 */
export function writeFileAtomic(
  path: string,
  text: string | Uint8Array,
  write: WriteBytes = nodeWrite,
): void {
  const dir = dirname(resolve(path));
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const fail = (e: unknown): never => {
    unlinkQuietly(tmp);
    const why = e instanceof Error ? e.message : String(e);
    throw new CliError(`Could not write ${path} (${why}); it was left as it was.`);
  };
  let fd: number;
  try {
    fd = openSync(tmp, 'w');
  } catch (e) {
    return fail(e);
  }
  try {
    writeAll(fd, bytes, write);
    fsyncSync(fd);
    // What the file system holds, not what the writes claimed: the last guard before the rename.
    const size = fstatSync(fd).size;
    if (size !== bytes.length) throw new Error(`the temp file holds ${size} of ${bytes.length} bytes`);
  } catch (e) {
    closeSync(fd);
    return fail(e);
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    return fail(e);
  }
  fsyncDir(dir);
}

/**
 * writeFileAtomic, then `path` read back: it must hold exactly `text`, and `check` (the file's
 * schema) must accept it. Throws a CliError otherwise, so the caller keeps whatever it could
 * write the file again from.
 */
export function writeFileVerified(
  path: string,
  text: string,
  check: (json: unknown) => unknown,
  write: WriteBytes = nodeWrite,
): void {
  writeFileAtomic(path, text, write);
  let back: string;
  try {
    back = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`${path} was written but cannot be read back (${(e as Error).message}).`);
  }
  if (back !== text) {
    throw new CliError(
      `${path} was written but reads back different (${Buffer.byteLength(back)} of ${Buffer.byteLength(text)} bytes).`,
    );
  }
  try {
    check(JSON.parse(back));
  } catch (e) {
    throw new CliError(`${path} was written but does not validate (${(e as Error).message}).`);
  }
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
    // Every byte or an error: a short append glued to the next one would lose both entries.
    writeAll(this.#fd, Buffer.from(entry === null ? '\n' : `${JSON.stringify(entry)}\n`, 'utf8'));
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
