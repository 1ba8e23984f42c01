/**
 * Finding the Vulkan loader Dawn needs: LD_LIBRARY_PATH before the system, and the advice a user
 * gets when there is none names the library and the package that installs it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findVulkanLoader, missingLoaderAdvice, VULKAN_LOADER } from '../../../src/cli/vulkanLoader.ts';

const none = () => null;

describe.runIf(process.platform === 'linux')('Vulkan loader lookup', () => {
  it('takes the first LD_LIBRARY_PATH directory that holds libvulkan.so.1', () => {
    const root = mkdtempSync(join(tmpdir(), 'rac-vk-'));
    const [empty, has] = [join(root, 'empty'), join(root, 'has')];
    mkdirSync(empty);
    mkdirSync(has);
    writeFileSync(join(has, VULKAN_LOADER), '');
    expect(findVulkanLoader({ LD_LIBRARY_PATH: `${empty}::${has}` }, none)).toBe(join(has, VULKAN_LOADER));
    expect(findVulkanLoader({ LD_LIBRARY_PATH: empty }, none)).toBeNull();
    expect(findVulkanLoader({ LD_LIBRARY_PATH: empty }, () => '/usr/lib/x/libvulkan.so.1')).toBe(
      '/usr/lib/x/libvulkan.so.1',
    );
  });

  it('names the library and the package when the loader is missing, and says nothing when it is there', () => {
    const advice = missingLoaderAdvice({}, none);
    expect(advice).toMatch(/libvulkan\.so\.1 is not installed/);
    expect(advice).toMatch(/apt-get install libvulkan1/);
    expect(missingLoaderAdvice({}, () => '/usr/lib/x86_64-linux-gnu/libvulkan.so.1')).toBeNull();
  });
});
