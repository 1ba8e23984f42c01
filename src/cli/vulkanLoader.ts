/**
 * Where the Vulkan loader (libvulkan.so.1) is, for `--backend webgpu` on Linux: Dawn dlopens it at
 * adapter time and, without it, only warns on stderr and reports no adapter. Naming the missing
 * library (and the package that has it) is the difference between a fix and a hunt for a driver.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const VULKAN_LOADER = 'libvulkan.so.1';

/** Chromium's own copy of the loader (Debian's chromium ships one beside its SwiftShader ICD). */
export const CHROMIUM_LIB_DIR = '/usr/lib/chromium';

/** Debian's multiarch directory of this process's architecture. */
function multiarchDirs(): string[] {
  const triplet = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch as 'x64' | 'arm64'];
  const dirs = ['/usr/lib64', '/lib64', '/usr/lib', '/lib', '/usr/local/lib'];
  return triplet ? [`/usr/lib/${triplet}`, `/lib/${triplet}`, ...dirs] : dirs;
}

/** The path the dynamic linker's cache lists for libvulkan.so.1, or null (no ldconfig, not listed). */
function fromLdconfigCache(): string | null {
  for (const ldconfig of ['/usr/sbin/ldconfig', '/sbin/ldconfig']) {
    if (!existsSync(ldconfig)) continue;
    try {
      const listing = execFileSync(ldconfig, ['-p'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const line = listing.split('\n').find((l) => l.trim().startsWith(`${VULKAN_LOADER} `));
      if (line) return line.slice(line.lastIndexOf('=>') + 2).trim();
    } catch {
      // fall back to the directory scan
    }
    return null;
  }
  return null;
}

/**
 * The loader this process's children would load: LD_LIBRARY_PATH first, then the linker's cache,
 * then the usual directories. Null where a dlopen of libvulkan.so.1 would fail. Linux only
 * (elsewhere Dawn uses Metal or D3D12 and this returns null without looking).
 */
export function findVulkanLoader(
  env: NodeJS.ProcessEnv = process.env,
  systemLoader: () => string | null = systemVulkanLoader,
): string | null {
  if (process.platform !== 'linux') return null;
  for (const dir of (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)) {
    const p = join(dir, VULKAN_LOADER);
    if (existsSync(p)) return p;
  }
  return systemLoader();
}

/** The system's loader: the linker's cache, else the usual directories; null where there is none. */
export function systemVulkanLoader(): string | null {
  return (
    fromLdconfigCache() ??
    multiarchDirs()
      .map((d) => join(d, VULKAN_LOADER))
      .find(existsSync) ??
    null
  );
}

/** Advice for "Dawn found no adapter" on Linux when the reason is the missing loader; null otherwise. */
export function missingLoaderAdvice(
  env: NodeJS.ProcessEnv = process.env,
  systemLoader: () => string | null = systemVulkanLoader,
): string | null {
  if (process.platform !== 'linux' || findVulkanLoader(env, systemLoader)) return null;
  const chromium = existsSync(join(CHROMIUM_LIB_DIR, VULKAN_LOADER))
    ? ` (or run with LD_LIBRARY_PATH=${CHROMIUM_LIB_DIR}, whose copy Debian's chromium ships)`
    : '';
  return (
    `the Vulkan loader ${VULKAN_LOADER} is not installed, so Dawn cannot reach any GPU driver. ` +
    `Install it (Debian/Ubuntu: apt-get install libvulkan1; Fedora: dnf install vulkan-loader)${chromium}.`
  );
}
