/**
 * Loaded into a rac-bench process by the drill (NODE_OPTIONS=--import): SIGKILLs the process at
 * one moment of writing the final run file, to check that a kill there leaves either the old
 * file or the new one at --out. DRILL_KILL_MODE:
 *   mid-write      write half of the run JSON, then die (wherever it is written: --out or a temp file)
 *   before-rename  die just before a file is renamed onto DRILL_KILL_OUT
 *   after-rename   rename onto DRILL_KILL_OUT, then die at once
 * The run JSON is recognised by its first bytes ({"schema":"rsb-run/), so journal appends pass.
 */
import fs from 'node:fs';
import { resolve } from 'node:path';
import { syncBuiltinESMExports } from 'node:module';

const mode = process.env.DRILL_KILL_MODE;
const out = process.env.DRILL_KILL_OUT ? resolve(process.env.DRILL_KILL_OUT) : null;
const die = () => process.kill(process.pid, 'SIGKILL');

function head(data) {
  if (typeof data === 'string') return data.slice(0, 40);
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, Math.min(40, data.byteLength)).toString('utf8');
  return '';
}
const isRunJson = (data) => /^\{"schema":"rsb-run\//.test(head(data));
const half = (data) =>
  typeof data === 'string' ? data.slice(0, data.length >> 1) : data.subarray(0, data.byteLength >> 1);

if (mode === 'mid-write') {
  const { writeSync, writeFileSync } = fs;
  fs.writeSync = function (fd, data, ...rest) {
    if (isRunJson(data)) {
      writeSync.call(fs, fd, half(data));
      try {
        fs.fsyncSync(fd);
      } catch {
        /* not a file */
      }
      die();
    }
    return writeSync.call(fs, fd, data, ...rest);
  };
  fs.writeFileSync = function (file, data, ...rest) {
    if (isRunJson(data)) {
      writeFileSync.call(fs, file, half(data), ...rest);
      die();
    }
    return writeFileSync.call(fs, file, data, ...rest);
  };
  const writeFile = fs.promises.writeFile;
  fs.promises.writeFile = async function (file, data, ...rest) {
    if (isRunJson(data)) {
      await writeFile.call(fs.promises, file, half(data), ...rest);
      die();
    }
    return writeFile.call(fs.promises, file, data, ...rest);
  };
} else if (mode === 'before-rename' || mode === 'after-rename') {
  const { renameSync } = fs;
  fs.renameSync = function (from, to) {
    const onto = out !== null && resolve(String(to)) === out;
    if (onto && mode === 'before-rename') die();
    renameSync.call(fs, from, to);
    if (onto) die();
  };
}
syncBuiltinESMExports();
