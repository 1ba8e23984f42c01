/**
 * The device kit end to end on this GPU-less machine: `scripts/device/kit.mjs` builds a kit
 * (--light: xz -0 instead of -9e, seconds instead of a minute; --loader system: this machine's
 * libvulkan.so.1 instead of `apt-get download libvulkan1`, so the test needs no network — the kit's
 * layout is the same), then `scripts/device/gpu-check.sh --dry-run` runs the BUNDLED CLI and bench
 * (not the sources) on Node unpacked by Python's lzma, with SwiftShader's Vulkan driver as the GPU.
 * The real run on an NVIDIA machine differs only in sizes, the adapter and PyTorch's device.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_ORDER } from '../../../scripts/device/report.ts';
import { SWIFTSHADER_ICD, swiftShaderEnv } from '../helpers/probe.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'scripts/device/gpu-check.sh');
const dir = mkdtempSync(join(tmpdir(), 'rac-device-kit-'));
const kit = join(dir, 'kit');
// PyTorch for the comparison column where this machine's Python has it (Debian's python3-torch).
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const hasTorch = (() => {
  try {
    execFileSync(python, ['-c', 'import torch, numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function gpuCheck(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [script, '--kit', kit, ...args],
      {
        cwd: dir,
        env: { ...process.env, PYTHON: python, GPU_CHECK_NO_XZ: '1', ...env },
        maxBuffer: 1 << 26,
        timeout: 900_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          out: stdout,
          err: stderr,
        }),
    );
  });
}

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(root, 'scripts/device/kit.mjs'), '--out', kit, '--light', '--loader', 'system'],
    {
      stdio: 'pipe',
    },
  );
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('device kit', () => {
  it('is under 60 MiB with every part in its manifest', () => {
    const m = JSON.parse(readFileSync(join(kit, 'manifest.json'), 'utf8')) as {
      totalBytes: number;
      files: { path: string; bytes: number }[];
    };
    expect(m.totalBytes).toBeLessThan(60 * 2 ** 20);
    const paths = m.files.map((f) => f.path);
    for (const p of [
      'node.xz',
      'dawn.node.xz',
      'app/dist/bin/rac-bench.mjs',
      'app/dist/bin/bench.mjs',
      'app/node_modules/webgpu/index.js',
      'app/public/data/iris.csv',
      'lib/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
      'py/bench/deep_step.py',
      'gpu-check.sh',
    ])
      expect(paths).toContain(p);
    expect(m.files.reduce((s, f) => s + f.bytes, 0)).toBe(m.totalBytes);
  });

  it('runs the dry run on SwiftShader: every method measured, the fit and the cells, one table under OUT', async () => {
    expect(existsSync(SWIFTSHADER_ICD), `${SWIFTSHADER_ICD} (Debian's chromium) stands in for the GPU`).toBe(
      true,
    );
    const out = join(dir, 'out-dry');
    const r = await gpuCheck(['--dry-run', '--out', out], swiftShaderEnv());
    expect(
      r.code,
      `${r.out}\n${r.err}\n${existsSync(join(out, 'log.txt')) ? readFileSync(join(out, 'log.txt'), 'utf8') : ''}`,
    ).toBe(0);
    const table = readFileSync(join(out, 'table.md'), 'utf8');
    expect(r.out).toContain(table.trim().split('\n')[0]); // printed as well as written
    expect(table).toMatch(/WebGPU: .*swiftshader.*\(software\)/i);
    const num = String.raw`\d+(?:\.\d+)?(?:e-?\d+)? (?:ms|s)`;
    for (const m of METHOD_ORDER) {
      const row = table.split('\n').find((l) => l.startsWith(`| step iris/${m} `));
      expect(row, `row of ${m}`).toBeDefined();
      // WebGPU ms · TFLOP/s, then PyTorch's (or a dash), then the ratio, then kernels per step.
      const torch = hasTorch ? `${num} · \\S+ TFLOP/s` : '—';
      expect(row).toMatch(
        new RegExp(
          String.raw`^\| step iris/${m} \(1:8:2:8\) \| ${num} · \S+ TFLOP/s \| ${torch} \| [^|]+ \| \d+ \|`,
        ),
      );
    }
    expect(table).toMatch(/\| FT-Transformer fit, iris, 3 steps \| \d/);
    expect(table).toMatch(
      /\| iris · distribution · 5 · FT-T, t = 0–1 \| \d\.\d{4} \(2 seeds\) \| published 0\.9800/,
    );
    expect(table).toContain(hasTorch ? 'PyTorch: torch ' : 'PyTorch: not available');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      stages: { name: string; status: string }[];
    };
    const expected = hasTorch
      ? ['adapter', 'steps', 'torch', 'fit', 'cells']
      : ['adapter', 'steps', 'fit', 'cells'];
    for (const name of expected) expect(result.stages.find((s) => s.name === name)?.status, name).toBe('ok');
    // The bundles ran, not the TypeScript sources.
    const log = readFileSync(join(out, 'log.txt'), 'utf8');
    expect(log).toMatch(/app\/dist\/bin\/bench\.mjs steps/);
    expect(log).toMatch(/app\/dist\/bin\/rac-bench\.mjs run/);
  }, 900_000);

  it('refuses to time a software adapter without --dry-run, and still writes its table', async () => {
    const out = join(dir, 'out-refused');
    const r = await gpuCheck(['--out', out], swiftShaderEnv());
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/software one .*swiftshader/i);
    expect(r.err).toMatch(/refusing to measure a software adapter/);
    const table = readFileSync(join(out, 'table.md'), 'utf8');
    expect(table).toMatch(/- steps: skipped, .*no usable WebGPU adapter/);
  }, 300_000);

  it('refuses a kit that does not match its checksums', async () => {
    appendFileSync(join(kit, 'app/public/data/iris.csv'), '\n');
    const r = await gpuCheck(['--dry-run', '--out', join(dir, 'out-bad')], swiftShaderEnv());
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/does not match its SHA256SUMS/);
  }, 120_000);
});
