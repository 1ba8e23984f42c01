/** Saves text or a blob as a file through a temporary object URL (no server involved). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Some browsers read the URL after click returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadText(text: string, name: string, type: string): void {
  downloadBlob(new Blob([text], { type }), name);
}
