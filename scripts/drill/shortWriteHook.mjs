/**
 * Loaded into a rac-bench process by the drill (NODE_OPTIONS=--import): plays a disk that fills
 * up while the final run file is written, as a real one does. The first write of the run JSON to
 * a file puts out only part of the bytes (at most DRILL_SHORT_BYTES, default 8192, and never all)
 * and returns that short count; every later write to that file throws ENOSPC. A writer that takes
 * the short count for success leaves a cut file; a sound one keeps the old file and the journal.
 * The run JSON is recognised by its first bytes ({"schema":"rsb-run/), so journal appends pass.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const limit = Number(process.env.DRILL_SHORT_BYTES ?? 8192);
/** Files whose disk is "full": every further write fails. */
const full = new Set();

function head(data) {
  if (typeof data === 'string') return data.slice(0, 40);
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, Math.min(40, data.byteLength)).toString('utf8');
  return '';
}
const isRunJson = (data) => /^\{"schema":"rsb-run\//.test(head(data));
const enospc = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
/** How much of `length` bytes the nearly full disk takes: some, never all. */
const partOf = (length) => Math.max(1, Math.min(limit, length >> 1));

const { writeSync, closeSync, writeFileSync } = fs;
fs.writeSync = function (fd, data, ...rest) {
  if (full.has(fd)) throw enospc();
  if (isRunJson(data)) {
    full.add(fd);
    if (typeof data === 'string') {
      const bytes = Buffer.from(data, 'utf8');
      return writeSync.call(fs, fd, bytes, 0, partOf(bytes.length));
    }
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = typeof rest[1] === 'number' ? rest[1] : data.byteLength - offset;
    return writeSync.call(fs, fd, data, offset, partOf(length));
  }
  return writeSync.call(fs, fd, data, ...rest);
};
fs.closeSync = function (fd) {
  full.delete(fd); // descriptors are reused
  return closeSync.call(fs, fd);
};
fs.writeFileSync = function (file, data, ...rest) {
  if (isRunJson(data)) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    writeFileSync.call(fs, file, bytes.subarray(0, partOf(bytes.length)), ...rest);
    throw enospc();
  }
  return writeFileSync.call(fs, file, data, ...rest);
};
syncBuiltinESMExports();
