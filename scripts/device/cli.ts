/**
 * The `rac-bench` CLI as the device kit bundles it (scripts/device/kit.mjs → .device/app/dist/bin/
 * rac-bench.mjs): bin/rac-bench.mjs without tsx, since the bundle is plain JavaScript already.
 */
import { main } from '../../src/cli/main.ts';

// `rac-bench split ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
