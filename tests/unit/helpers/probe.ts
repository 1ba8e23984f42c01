/**
 * Runs a TypeScript probe script in a fresh Node process (through tsx) with a backend argument,
 * for the tests that need a backend the test process cannot switch to (Dawn's WebGPU under Node).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { CHROMIUM_LIB_DIR, findVulkanLoader } from '../../../src/cli/vulkanLoader.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** SwiftShader's Vulkan driver (Debian's chromium package): Dawn's stand-in GPU on a CPU machine. */
export const SWIFTSHADER_ICD = process.env.RAC_VK_ICD ?? '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * The environment a child process needs to run Dawn on SwiftShader: the ICD, and where the system
 * has no Vulkan loader (Debian's libvulkan1, which .ci/run installs), Chromium's bundled copy of it.
 * Dawn dlopens libvulkan.so.1 and without it finds no adapter at all.
 */
export function swiftShaderEnv(): Record<string, string> {
  const env: Record<string, string> = { VK_ICD_FILENAMES: SWIFTSHADER_ICD };
  if (!findVulkanLoader()) {
    const lib = [CHROMIUM_LIB_DIR, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
    env.LD_LIBRARY_PATH = lib;
  }
  return env;
}

/** A probe script's path from the repository root, e.g. 'tests/unit/cli/webgpuNodeProbe.ts'. */
export const probePath = (fromRoot: string): string => join(root, fromRoot);

export function runProbe(
  probe: string,
  backend: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx/esm', probe, backend],
      { cwd: root, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          out: stdout,
          err: stderr,
        }),
    );
  });
}

/**
 * Runs a probe (path from the repository root) on Dawn's WebGPU over SwiftShader, asserting that the
 * driver is installed and that the probe exits 0 (its stderr as the message), and returns the JSON
 * object the probe printed.
 */
export async function runSwiftShaderProbe<T>(fromRoot: string, timeoutMs: number): Promise<T> {
  expect(existsSync(SWIFTSHADER_ICD), `${SWIFTSHADER_ICD} (Debian's chromium package) is needed`).toBe(true);
  const r = await runProbe(probePath(fromRoot), 'webgpu', swiftShaderEnv(), timeoutMs);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
}
