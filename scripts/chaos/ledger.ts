/**
 * What the server acknowledged, and the check that it is all still there. Writers record each
 * write as they send it and its outcome as it comes back; after a crash, a full disk or a
 * corrupted byte, `verify` reads the memory back over HTTP. A write answered 200 must be present;
 * a delete answered 200 must stay deleted; a write refused with "nothing was written" (507) must
 * not have half-happened. Writes whose answer never came may have landed or not: not checked.
 */
import { callJson, idsOf, listAll } from './client.js';
import type { Rng } from './rng.js';

type State = 'sent' | 'acked' | 'refused' | 'deleting' | 'deleted' | 'unknown';

interface Knowledge {
  id: string;
  user: string;
  state: State;
}

interface Message {
  user: string;
  session: string;
  word: string;
}

export interface VerifyResult {
  ok: boolean;
  checked: number;
  lost: string[];
  undone: string[];
  /** Writes refused as "nothing was written" that were written after all. */
  halfWritten: string[];
  /** The read-back itself failed (a 5xx, a hang). */
  readFailures: string[];
}

/** Counts of what a writer got back. */
export interface WriteCounts {
  acked: number;
  ackedDeletes: number;
  refused507: number;
  other5xx: number;
  hangs: number;
  statuses: Record<string, number>;
}

export class Ledger {
  readonly knowledge = new Map<string, Knowledge>();
  readonly profileKeys = new Map<string, Set<string>>();
  readonly messages: Message[] = [];
  readonly counts: WriteCounts = { acked: 0, ackedDeletes: 0, refused507: 0, other5xx: 0, hangs: 0, statuses: {} };
  private serial = 0;

  /** `refusals`: statuses that mean "nothing was written" for this scenario (507; 503 too under a file-size limit). */
  constructor(private readonly refusals: ReadonlySet<number> = new Set([507])) {}

  /** A token that occurs nowhere else, for finding a write again. */
  word(prefix: string): string {
    return `${prefix}q${(++this.serial).toString(36)}z`;
  }

  private count(status: number, failure?: string): void {
    const key = failure ? `no-answer:${failure.slice(0, 40)}` : String(status);
    this.counts.statuses[key] = (this.counts.statuses[key] ?? 0) + 1;
    if (this.refusals.has(status)) this.counts.refused507++;
    else if (status >= 500) this.counts.other5xx++;
    if (failure === 'timeout') this.counts.hangs++;
  }

  /** One write of a random kind for `user`; resolves with the status (0: no answer). */
  async writeOne(port: number, user: string, rng: Rng, opts: { deletes: boolean; bigText?: number }): Promise<number> {
    const kind = rng.next();
    const padding = opts.bigText ? ` ${'memory '.repeat(Math.floor(opts.bigText / 7))}` : '';
    if (kind < 0.4) {
      const id = `kn-${this.word(user)}`;
      const rec: Knowledge = { id, user, state: 'sent' };
      this.knowledge.set(id, rec);
      const a = await callJson(port, '/api/v1/memory/knowledge', { user_id: user, id, title: `note ${id}`, content: `The code word is ${id}.${padding}` });
      this.count(a.status, a.failure);
      rec.state = a.status === 200 ? 'acked' : this.refusals.has(a.status) ? 'refused' : 'unknown';
      if (a.status === 200) this.counts.acked++;
      return a.status;
    }
    if (kind < 0.55) {
      const key = `k_${this.word(user)}`;
      const a = await callJson(port, '/api/v1/memory/profile', { user_id: user, profile_data: { [key]: `v ${key}` } });
      this.count(a.status, a.failure);
      if (a.status === 200) {
        this.counts.acked++;
        let keys = this.profileKeys.get(user);
        if (!keys) this.profileKeys.set(user, (keys = new Set()));
        keys.add(key);
      }
      return a.status;
    }
    if (kind < 0.8 || !opts.deletes) {
      const session = `ss-${user}-${rng.int(0, 3)}`;
      const word = this.word(user);
      const a = await callJson(port, '/api/v1/memory/add', {
        session_id: session,
        messages: [{ sender_id: user, role: 'user', timestamp: Date.now(), content: `I keep my ${word} notebook in the blue drawer.${padding}` }],
      });
      this.count(a.status, a.failure);
      if (a.status !== 200) return a.status;
      this.counts.acked++;
      this.messages.push({ user, session, word });
      if (rng.chance(0.5)) {
        const f = await callJson(port, '/api/v1/memory/flush', { session_id: session });
        this.count(f.status, f.failure);
        return f.status;
      }
      return a.status;
    }
    const candidates = [...this.knowledge.values()].filter((k) => k.user === user && k.state === 'acked');
    if (!candidates.length) return 200;
    const target = rng.pick(candidates);
    target.state = 'deleting';
    const a = await callJson(port, '/api/v1/memory/delete', { user_id: user, memory_id: target.id });
    this.count(a.status, a.failure);
    const deleted = a.status === 200 && (a.body as { data?: { deleted_count?: number } }).data?.deleted_count === 1;
    target.state = deleted ? 'deleted' : 'unknown';
    if (deleted) this.counts.ackedDeletes++;
    return a.status;
  }

  /** Reads every user's memory back and compares it with what was acknowledged. */
  async verify(port: number): Promise<VerifyResult> {
    const result: VerifyResult = { ok: true, checked: 0, lost: [], undone: [], halfWritten: [], readFailures: [] };
    const users = new Set<string>([...[...this.knowledge.values()].map((k) => k.user), ...this.profileKeys.keys(), ...this.messages.map((m) => m.user)]);
    for (const user of users) {
      const listing = await listAll(port, { user_id: user }, 'knowledge');
      if (!listing.ok) {
        result.readFailures.push(`get knowledge of ${user}`);
        continue;
      }
      const present = idsOf(listing.pages);
      for (const k of this.knowledge.values()) {
        if (k.user !== user) continue;
        if (k.state === 'acked') {
          result.checked++;
          if (!present.has(k.id)) result.lost.push(`knowledge ${k.id}`);
        } else if (k.state === 'deleted') {
          result.checked++;
          if (present.has(k.id)) result.undone.push(`delete of ${k.id}`);
        } else if (k.state === 'refused') {
          result.checked++;
          if (present.has(k.id)) result.halfWritten.push(`knowledge ${k.id} (answered 507)`);
        }
      }
      const keys = this.profileKeys.get(user);
      if (keys?.size) {
        const profile = await listAll(port, { user_id: user }, 'profile');
        if (!profile.ok) result.readFailures.push(`get profile of ${user}`);
        else {
          const text = JSON.stringify(profile.pages);
          for (const key of keys) {
            result.checked++;
            if (!text.includes(`"${key}"`)) result.lost.push(`profile key ${key} of ${user}`);
          }
        }
      }
    }
    const bySession = new Map<string, Message[]>();
    for (const m of this.messages) {
      const key = `${m.user}\u0000${m.session}`;
      bySession.set(key, [...(bySession.get(key) ?? []), m]);
    }
    for (const [key, list] of bySession) {
      const [user, session] = key.split('\u0000') as [string, string];
      // Episodes and facts of the session, and its messages still waiting for extraction.
      const texts: string[] = [];
      let failed = false;
      for (const type of ['episode', 'atomic_fact']) {
        const l = await listAll(port, { user_id: user }, type, { filters: { session_id: session } });
        if (!l.ok) failed = true;
        texts.push(JSON.stringify(l.pages));
      }
      if (failed) {
        result.readFailures.push(`get session ${session} of ${user}`);
        continue;
      }
      const text = texts.join('\n');
      for (const m of list) {
        result.checked++;
        if (!text.includes(m.word)) result.lost.push(`message ${m.word} in ${session}`);
      }
    }
    result.ok = !result.lost.length && !result.undone.length && !result.halfWritten.length && !result.readFailures.length;
    return result;
  }
}

/** Checks the server answers a read at all (used right after a restart). */
export async function answers(port: number): Promise<boolean> {
  const a = await callJson(port, '/health', undefined, 30_000);
  return a.status === 200;
}
