/** The one glossary popover of the page: which term it shows, and opening it next to a click. */
import type { GlossaryKey } from '../glossary.ts';

export const GLOSSARY_POPOVER_ID = 'glossary-popover';

class GlossaryPopoverState {
  key = $state<GlossaryKey | null>(null);

  open(key: GlossaryKey): void {
    this.key = key;
    const el = document.getElementById(GLOSSARY_POPOVER_ID);
    if (el && !el.matches(':popover-open')) el.showPopover();
  }
}

export const glossaryPopover = new GlossaryPopoverState();
