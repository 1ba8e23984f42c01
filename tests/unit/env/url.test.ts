import { describe, expect, it } from 'vitest';
import { formatHash, parseHash, withField, withPage } from '../../../src/state/url.ts';

describe('url hash', () => {
  it('parses page and backend, defaulting to home', () => {
    expect(parseHash('')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/about?v=1&backend=wasm')).toEqual({ page: 'about', fields: { backend: 'wasm' } });
    expect(parseHash('#/nowhere')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/run?backend=tpu')).toEqual({ page: 'run', fields: { backend: 'auto' } });
  });
  it('writes v=1 first and leaves defaults out', () => {
    expect(formatHash({ page: 'results', fields: { backend: 'webgpu' } })).toBe('#/results?v=1&backend=webgpu');
    expect(formatHash({ page: 'home', fields: { backend: 'auto' } })).toBe('#/');
  });
  it('changes one field or the page and keeps the rest', () => {
    expect(withField('#/learn', 'backend', 'cpu')).toBe('#/learn?v=1&backend=cpu');
    expect(withField('#/learn?v=1&backend=cpu', 'backend', 'auto')).toBe('#/learn');
    expect(withPage('#/learn?v=1&backend=cpu', 'about')).toBe('#/about?v=1&backend=cpu');
  });
});
