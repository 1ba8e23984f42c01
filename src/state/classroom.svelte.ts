/**
 * Classroom mode and the toy's settings, read from the URL hash (see lib/toy/classroomUrl.ts for the
 * keys) and written back with replaceState as the toy changes, so the address bar always holds a
 * link to the picture on screen. Large type and the hidden header controls are attributes on <html>
 * that the Learn page sets while it is shown (its CSS reads them).
 */
import {
  CLASSROOM_DEFAULTS,
  HIDE_KEYS,
  parseClassroomHash,
  withToyKeys,
  type ClassroomUrl,
  type HideKey,
} from '../lib/toy/classroomUrl.ts';
import type { ToyShape } from '../lib/toy/generate.ts';
import type { Setting } from '../lib/types.ts';

const WRITE_MS = 200;

export class ClassroomState {
  classroom = $state(false);
  toySeed = $state(CLASSROOM_DEFAULTS.toySeed);
  toyShape = $state<ToyShape>(CLASSROOM_DEFAULTS.toyShape);
  toySetting = $state<Setting>(CLASSROOM_DEFAULTS.toySetting);
  toyT = $state(CLASSROOM_DEFAULTS.toyT);
  hide = $state<Record<HideKey, boolean>>(
    Object.fromEntries(HIDE_KEYS.map((k) => [k, false])) as Record<HideKey, boolean>,
  );

  #timer: ReturnType<typeof setTimeout> | null = null;

  /** Read everything from the hash (on load and on hashchange). */
  syncFromHash(hash: string = location.hash): void {
    const u: ClassroomUrl = parseClassroomHash(hash);
    this.classroom = u.classroom;
    this.toySeed = u.toySeed;
    this.toyShape = u.toyShape;
    this.toySetting = u.toySetting;
    this.toyT = u.toyT;
    this.hide = u.hide;
  }

  setToy(change: Partial<Pick<ClassroomUrl, 'toySeed' | 'toyShape' | 'toySetting' | 'toyT'>>): void {
    if (change.toySeed !== undefined) this.toySeed = change.toySeed;
    if (change.toyShape !== undefined) this.toyShape = change.toyShape;
    if (change.toySetting !== undefined) this.toySetting = change.toySetting;
    if (change.toyT !== undefined) this.toyT = change.toyT;
    this.#scheduleWrite();
  }

  /** The current hash with the toy keys: a link that reproduces the picture. */
  link(): string {
    const hash = withToyKeys(location.hash, this);
    return `${location.origin}${location.pathname}${location.search}${hash}`;
  }

  // A dragged slider changes t many times a second; the address bar follows at most 5 times.
  #scheduleWrite(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const next = withToyKeys(location.hash, this);
      if (next !== location.hash) history.replaceState(history.state, '', next);
    }, WRITE_MS);
  }

  /** Put the mode on <html> (large type, hidden nav / badge); returns the undo. */
  applyToDocument(): () => void {
    const html = document.documentElement;
    html.toggleAttribute('data-classroom', this.classroom);
    html.toggleAttribute('data-hide-nav', this.hide.nav);
    html.toggleAttribute('data-hide-backend', this.hide.backend);
    return () => {
      html.removeAttribute('data-classroom');
      html.removeAttribute('data-hide-nav');
      html.removeAttribute('data-hide-backend');
    };
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

export const classroom = new ClassroomState();
