/**
 * FitHold, the gate behind the page's holdAfter/release test hooks: set() wakes every lane that
 * waits at the gate (not only the last one to ask), and a later wait gets a fresh promise.
 */
import { describe, expect, it } from 'vitest';
import { FitHold } from '../../../workers/pool.ts';

describe('FitHold', () => {
  it('holds at its limit, and set() wakes every waiter at once', async () => {
    const hold = new FitHold();
    expect(hold.limit()).toBeNull();
    hold.set(3);
    expect(hold.limit()).toBe(3);
    const woke: number[] = [];
    const waits = [0, 1, 2].map((i) => hold.opened().then(() => woke.push(i)));
    await Promise.resolve();
    expect(woke).toEqual([]);
    hold.set(null);
    await Promise.all(waits);
    expect(woke.sort()).toEqual([0, 1, 2]);
    expect(hold.limit()).toBeNull();
    // The next wait is pending again until the next set().
    let again = false;
    void hold.opened().then(() => (again = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(again).toBe(false);
    hold.set(10);
    await new Promise((r) => setTimeout(r, 0));
    expect(again).toBe(true);
  });
});
