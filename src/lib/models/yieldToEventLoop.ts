/**
 * Lets a long fit give the event loop a turn (so an abort message can arrive) without the
 * >= 4 ms clamp that nested setTimeout(0) gets in browsers: a MessageChannel round trip is a
 * macrotask with no minimum delay. TSVM yields between its dozens of SVC fits per cell, so
 * the clamp alone cost about 0.2 s per cell in a worker.
 */
export function yieldToEventLoop(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((r) => setTimeout(r, 0));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
    port2.close();
  });
}
