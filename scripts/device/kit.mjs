#!/usr/bin/env node
/**
 * npm run device:kit — builds .device/ (git-ignored): everything scripts/device/gpu-check.sh needs
 * to measure RAC Bench on a bare x86-64 GPU machine that has no Node, no npm and no network
 * (the device tool carries it: `carry: [".device"]`). Contents:
 *   app/dist/bin/     the CLI (rac-bench.mjs) and the measuring program (bench.mjs), each bundled
 *                     into one file by esbuild; tfjs-backend-wasm's .wasm files beside them
 *   app/public/data/  the embedded datasets (iris, wine), where the CLI's loader looks for them
 *   app/node_modules/webgpu/  Dawn for Node's loader (index.js); its linux-x64 binary is
 *                     dawn.node.xz and is unpacked there at run time
 *   node.xz           this Node binary, xz-compressed (Python's lzma unpacks it where xz is missing)
 *   lib/              the Vulkan loader (Debian's libvulkan1, `apt-get download` + `dpkg -x`);
 *                     no ICD: on a real GPU the NVIDIA driver provides it
 *   py/               scripts/bench/deep_step.py and the oracle it imports (the PyTorch side)
 *   gpu-check.sh      the runner; manifest.json (sizes, sha256, versions) and SHA256SUMS
 * Fails, printing the breakdown, when the kit exceeds 60 MiB (what travels to the device machine
 * is limited to 64 MiB with the repository).
 *
 * Options: --out DIR (default .device)  --light (xz -0: seconds instead of a minute; for tests)
 *          --loader apt|system (system: copy this machine's libvulkan.so.1 instead of downloading
 *          libvulkan1; for machines without network)  --node PATH (default: this Node)
 *          --max-mib 60
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const MIB = 1 << 20;

const { values: opt } = parseArgs({
  options: {
    out: { type: 'string', default: join(ROOT, '.device') },
    light: { type: 'boolean', default: false },
    loader: { type: 'string', default: 'apt' },
    node: { type: 'string', default: process.execPath },
    'max-mib': { type: 'string', default: '60' },
  },
});

function fail(message) {
  console.error(`device:kit: ${message}`);
  process.exit(1);
}

/** The ELF machine of a binary: 0x3e is x86-64 (the device machines' processor). */
function elfMachine(path) {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(20);
  readSync(fd, head, 0, 20, 0);
  closeSync(fd);
  if (head.readUInt32BE(0) !== 0x7f454c46) return null;
  return head.readUInt16LE(18);
}

function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28, ...options });
}

function has(cmd) {
  try {
    run('sh', ['-c', `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

/** This machine's libvulkan.so.1: the linker's cache, else the usual places (Chromium ships one). */
function systemVulkanLoader() {
  try {
    const line = run('/sbin/ldconfig', ['-p'])
      .toString()
      .split('\n')
      .find((l) => l.trim().startsWith('libvulkan.so.1 ') && l.includes('x86-64'));
    if (line) return line.slice(line.lastIndexOf('=>') + 2).trim();
  } catch {
    // no ldconfig: look in the usual places
  }
  return [
    '/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
    '/lib/x86_64-linux-gnu/libvulkan.so.1',
    '/usr/lib/chromium/libvulkan.so.1',
  ].find(existsSync);
}

/** xz-compresses `src` to `dest`: level 9e normally, 0 for --light. */
function xz(src, dest) {
  const level = opt.light ? '-0' : '-9e';
  if (has('xz')) {
    writeFileSync(dest, run('xz', [level, '-T0', '-c', src]));
    return;
  }
  // Python's lzma writes the same .xz format (CRC64 check), so either side can unpack the other's.
  const py = `import lzma,shutil,sys\nwith open(sys.argv[1],'rb') as s, lzma.open(sys.argv[2],'wb',preset=${opt.light ? 0 : '9|lzma.PRESET_EXTREME'}) as d: shutil.copyfileobj(s,d)`;
  run('python3', ['-c', py, src, dest]);
}

const OUT = opt.out;
const maxMib = Number(opt['max-mib']);
if (process.platform !== 'linux')
  fail('the kit is built on Linux (it packs a Linux Node binary and Debian packages).');
if (elfMachine(opt.node) !== 0x3e)
  fail(
    `${opt.node} is not an x86-64 Linux binary; the device machines are x86-64 (pass --node PATH to an x86-64 node).`,
  );
const dawnBinary = join(ROOT, 'node_modules/webgpu/dist/linux-x64/dawn.node');
if (!existsSync(dawnBinary))
  fail(`${dawnBinary} is missing: run npm ci (the optional package "webgpu" holds Dawn for Node).`);
if (!['apt', 'system'].includes(opt.loader)) fail(`--loader must be apt or system; got "${opt.loader}".`);

const started = performance.now();
rmSync(OUT, { recursive: true, force: true });
const bin = join(OUT, 'app/dist/bin');
mkdirSync(bin, { recursive: true });

// 1. The CLI and the measuring program, each bundled into one file (no chunks to lose on the way).
const esbuild = await import('esbuild');
const banner = [
  // Bundled CommonJS (tfjs' wasm glue, Emscripten) expects require/__dirname inside an ES module.
  "import { createRequire as __rbCreateRequire } from 'node:module';",
  "import { fileURLToPath as __rbFileURLToPath } from 'node:url';",
  "import { dirname as __rbDirname } from 'node:path';",
  'const require = __rbCreateRequire(import.meta.url);',
  'const __filename = __rbFileURLToPath(import.meta.url);',
  'const __dirname = __rbDirname(__filename);',
].join(' ');
await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: { 'rac-bench': 'scripts/device/cli.ts', bench: 'scripts/device/bench.ts' },
  outdir: bin,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // Dawn is a native addon: resolved at run time from app/node_modules/webgpu.
  external: ['webgpu'],
  banner: { js: banner },
  outExtension: { '.js': '.mjs' },
  logLevel: 'error',
});
for (const f of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm'])
  copyFileSync(join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist', f), join(bin, f));

// 2. The embedded datasets, where nodeData.ts looks (two folders above the bundle, public/).
mkdirSync(join(OUT, 'app/public/data'), { recursive: true });
for (const f of ['iris.csv', 'wine.csv'])
  copyFileSync(join(ROOT, 'public/data', f), join(OUT, 'app/public/data', f));

// 3. Dawn for Node: its loader as is, its binary compressed.
const webgpuDir = join(OUT, 'app/node_modules/webgpu');
mkdirSync(join(webgpuDir, 'dist/linux-x64'), { recursive: true });
for (const f of ['package.json', 'index.js', 'LICENSE.md'])
  if (existsSync(join(ROOT, 'node_modules/webgpu', f)))
    copyFileSync(join(ROOT, 'node_modules/webgpu', f), join(webgpuDir, f));
xz(dawnBinary, join(OUT, 'dawn.node.xz'));

// 4. Node itself.
xz(opt.node, join(OUT, 'node.xz'));
const nodeVersion = run(opt.node, ['--version']).toString().trim();

// 5. The Vulkan loader Dawn dlopens (libvulkan.so.1).
const libDir = join(OUT, 'lib');
mkdirSync(libDir, { recursive: true });
let loader;
if (opt.loader === 'apt') {
  if (!has('apt-get') || !has('dpkg'))
    fail('--loader apt needs apt-get and dpkg (Debian/Ubuntu); use --loader system.');
  const tmp = mkdtempSync(join(tmpdir(), 'rac-kit-debs-'));
  const arch = ['-o', 'APT::Architecture=amd64'];
  try {
    run('apt-get', [...arch, 'download', 'libvulkan1:amd64'], { cwd: tmp });
  } catch (e) {
    fail(
      `apt-get download libvulkan1 failed (${String(e.stderr ?? e.message)
        .trim()
        .split('\n')
        .pop()}); ` + 'without network, build with --loader system (copies this machine’s libvulkan.so.1).',
    );
  }
  const debs = readdirSync(tmp).filter((f) => f.endsWith('.deb'));
  for (const deb of debs) run('dpkg', ['-x', join(tmp, deb), libDir]);
  loader = { source: 'apt', packages: debs.map(decodeURIComponent) };
  rmSync(tmp, { recursive: true, force: true });
  // Only the shared objects are needed; docs and changelogs only take room.
  rmSync(join(libDir, 'usr/share'), { recursive: true, force: true });
} else {
  const found = systemVulkanLoader();
  if (!found) fail('--loader system: this machine has no libvulkan.so.1 (apt-get install libvulkan1).');
  const dest = join(libDir, 'usr/lib/x86_64-linux-gnu');
  mkdirSync(dest, { recursive: true });
  copyFileSync(realpathSync(found), join(dest, 'libvulkan.so.1'));
  loader = { source: 'system', path: found };
}

// 6. The runner and the PyTorch side.
copyFileSync(join(ROOT, 'scripts/device/gpu-check.sh'), join(OUT, 'gpu-check.sh'));
chmodSync(join(OUT, 'gpu-check.sh'), 0o755);
mkdirSync(join(OUT, 'py/bench'), { recursive: true });
mkdirSync(join(OUT, 'py/fixtures'), { recursive: true });
copyFileSync(join(ROOT, 'scripts/bench/deep_step.py'), join(OUT, 'py/bench/deep_step.py'));
copyFileSync(
  join(ROOT, 'scripts/fixtures/make_deep_fixtures.py'),
  join(OUT, 'py/fixtures/make_deep_fixtures.py'),
);

// 7. Manifest and checksums.
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return e.isFile() ? [p] : []; // symbolic links (libvulkan.so.1 → .so.1.3.x) take no room
  });
}
const files = walk(OUT)
  .map((p) => ({
    path: relative(OUT, p),
    bytes: statSync(p).size,
    sha256: createHash('sha256').update(readFileSync(p)).digest('hex'),
  }))
  .sort((a, b) => a.path.localeCompare(b.path));
const total = files.reduce((s, f) => s + f.bytes, 0);
let commit = null;
try {
  commit = run('git', ['-C', ROOT, 'rev-parse', 'HEAD']).toString().trim();
} catch {
  // not a git checkout
}
const pkgVersion = (p) =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')).version;
const manifest = {
  format: 'rac-bench-device-kit/1',
  builtAt: new Date().toISOString(),
  commit,
  node: nodeVersion,
  webgpu: pkgVersion('webgpu'),
  tfjs: pkgVersion('@tensorflow/tfjs-core'),
  esbuild: esbuild.version,
  light: opt.light,
  loader,
  totalBytes: total,
  files,
};
writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
writeFileSync(join(OUT, 'SHA256SUMS'), files.map((f) => `${f.sha256}  ${f.path}\n`).join(''));

// 8. The size breakdown, by top-level part.
const parts = new Map();
for (const f of files) {
  const top = f.path.startsWith('app/dist/')
    ? 'app/dist (CLI + bench bundles, tfjs wasm)'
    : f.path.split('/')[0];
  parts.set(top, (parts.get(top) ?? 0) + f.bytes);
}
const mib = (b) => `${(b / MIB).toFixed(2)} MiB`;
console.log(
  `device kit in ${relative(process.cwd(), OUT) || OUT} (${((performance.now() - started) / 1000).toFixed(1)} s):`,
);
for (const [k, v] of [...parts].sort((a, b) => b[1] - a[1])) console.log(`  ${mib(v).padStart(11)}  ${k}`);
console.log(
  `  ${mib(total).padStart(11)}  total (limit ${maxMib} MiB); Node ${nodeVersion}, webgpu ${manifest.webgpu}, loader: ${loader.source}`,
);
if (total > maxMib * MIB) fail(`the kit is ${mib(total)}, over the ${maxMib} MiB limit.`);
console.log(
  `Run it on a GPU machine: bash ${relative(ROOT, join(OUT, 'gpu-check.sh'))}  (device tool: carry [".device"])`,
);
