/** Compare's encoding: colour = algorithm (the palette), line style = run (these dashes, in order). */
export const RUN_NAMES = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
/** Solid, dashed, dotted, dash-dot, long dash, fine dots: distinct in print and in grey. */
export const RUN_DASHES: (string | null)[] = [null, '8 4', '2 3', '10 3 2 3', '14 4', '1 2'];
