#!/usr/bin/env node
// The `rac-bench` command: runs the TypeScript core under Node through tsx (a runtime
// dependency), so `npx rac-bench ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

register();
// `rac-bench split ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
