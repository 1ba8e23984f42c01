/**
 * Whether a run's user datasets are still the content stored under their ids (issue 12, row 3).
 * Every cell records the SHA-256 of the data it ran on; a user dataset can be replaced later
 * (after a confirmation), so a run on an earlier content must say so rather than pass for a
 * run on what `user:x` holds now.
 */
import { isUserDatasetId } from './userCsv.ts';
import type { UserDatasetMeta } from './userStore.ts';

export interface UserDataDrift {
  id: string;
  /** The content the run used. */
  runSha256: string;
  /** What this browser stores under the id now, or null when nothing is stored. */
  storedSha256: string | null;
  /** When the run's content was replaced here, if this browser remembers it. */
  replacedAt: number | null;
  message: string;
}

/** The run's user datasets whose recorded hash differs from the stored one (or that are gone). */
export function userDataDrift(
  cells: readonly { dataset: { id: string; sha256: string } }[],
  stored: readonly UserDatasetMeta[],
): UserDataDrift[] {
  const used = new Map<string, Set<string>>();
  for (const c of cells) {
    if (!isUserDatasetId(c.dataset.id)) continue;
    const set = used.get(c.dataset.id) ?? new Set<string>();
    set.add(c.dataset.sha256);
    used.set(c.dataset.id, set);
  }
  const byId = new Map(stored.map((m) => [m.id, m]));
  const out: UserDataDrift[] = [];
  for (const [id, hashes] of used) {
    const now = byId.get(id) ?? null;
    for (const sha of hashes) {
      if (now?.sha256 === sha) continue;
      const replacedAt = now?.replaced?.find((r) => r.sha256 === sha)?.replacedAt ?? null;
      const short = (h: string) => `${h.slice(0, 12)}…`;
      const message =
        now === null
          ? `This run used ${id} with SHA-256 ${short(sha)}; no dataset ${id} is stored in this browser now, so it cannot be re-run here without that CSV.`
          : `This run was made on a different content of ${id} (SHA-256 ${short(sha)}) than the one stored now (SHA-256 ${short(now.sha256)}` +
            `${replacedAt !== null ? `, replaced ${new Date(replacedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''}). ` +
            'Its numbers belong to the earlier content; a re-run would use the stored one.';
      out.push({ id, runSha256: sha, storedSha256: now?.sha256 ?? null, replacedAt, message });
    }
  }
  return out;
}
