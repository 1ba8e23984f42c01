/**
 * Chart draws spread over tasks: each task draws for at most BUDGET_MS (at least one chart), then
 * yields to the browser, so many panels drawn at once (an import, a resume) never make one long
 * task. A chart that asks again before its turn keeps one place in the queue, with its latest draw.
 */
const BUDGET_MS = 12;

const queue = new Map<object, () => void>();
let scheduled = false;

function drain(): void {
  scheduled = false;
  const t0 = performance.now();
  for (const [owner, draw] of queue) {
    queue.delete(owner);
    draw();
    if (performance.now() - t0 >= BUDGET_MS) break;
  }
  if (queue.size) schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // A macrotask, not a microtask: the browser gets to paint and handle input in between.
  setTimeout(drain, 0);
}

/** Queues owner's draw (replacing one it queued before); returns a function that cancels it. */
export function queueDraw(owner: object, draw: () => void): () => void {
  queue.set(owner, draw);
  schedule();
  return () => {
    if (queue.get(owner) === draw) queue.delete(owner);
  };
}
