/** Typed errors of the data pipeline: what went wrong, in words a user can act on. */

export type DatasetErrorKind =
  'network' | 'http' | 'truncated' | 'hash' | 'parse' | 'shape' | 'quota' | 'corrupt-cache';

export interface DatasetErrorInfo {
  kind: DatasetErrorKind;
  message: string;
  /** True where trying again (later, or on another host) may succeed. */
  retryable: boolean;
  datasetId?: string;
  url?: string;
  /** HTTP status, for kind 'http'. */
  status?: number;
  /** Bytes the cache needed, for kind 'quota'. */
  bytesNeeded?: number;
}

export class DatasetError extends Error {
  readonly kind: DatasetErrorKind;
  readonly retryable: boolean;
  readonly datasetId?: string;
  readonly url?: string;
  readonly status?: number;
  readonly bytesNeeded?: number;

  constructor(info: DatasetErrorInfo) {
    super(info.message);
    this.name = 'DatasetError';
    this.kind = info.kind;
    this.retryable = info.retryable;
    this.datasetId = info.datasetId;
    this.url = info.url;
    this.status = info.status;
    this.bytesNeeded = info.bytesNeeded;
  }

  /** Plain record: what crosses the worker boundary (comlink drops custom fields of errors). */
  toJSON(): DatasetErrorInfo {
    const { kind, message, retryable, datasetId, url, status, bytesNeeded } = this;
    return { kind, message, retryable, datasetId, url, status, bytesNeeded };
  }
}

export function isDatasetError(e: unknown): e is DatasetError {
  return e instanceof DatasetError;
}

export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}

/** Human-readable byte count (binary units, one decimal). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}
