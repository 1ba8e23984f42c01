/**
 * Protocol versions of results (PROTOCOL.md header): records made under an older spec stay readable
 * and are labelled with their version, but runs are compared and merged only with their own version.
 */
import type { RunRecord } from './schema.ts';

/** The protocol version(s) a run's cells were made under, ascending ('' for a run with no cells). */
export function runProtocolVersions(run: Pick<RunRecord, 'cells'>): string[] {
  return [...new Set(run.cells.map((c) => c.protocol.version))].sort();
}

/** One label for a run: its version, or "1.0.0+1.1.0" for a run that mixes them (never made by us). */
export function runProtocolVersion(run: Pick<RunRecord, 'cells'>): string {
  return runProtocolVersions(run).join('+');
}

/** A one-sentence refusal when two runs differ in protocol version, else null. */
export function versionMismatch(
  a: { name: string; run: Pick<RunRecord, 'cells'> },
  b: { name: string; run: Pick<RunRecord, 'cells'> },
): string | null {
  const va = runProtocolVersion(a.run);
  const vb = runProtocolVersion(b.run);
  if (va === '' || vb === '' || va === vb) return null;
  return `Run ${b.name} was made under protocol ${vb}, but run ${a.name} under protocol ${va}; results of different protocol versions are not compared or pooled (re-run one of them with this version of RAC Bench).`;
}
