/**
 * Counting what happened: per route (or scenario) the answers by class and every violation by
 * kind, with the first few examples kept as reproductions.
 */

/** One kept failure: enough to send the same request again. */
export interface Example {
  where: string;
  kind: string;
  violation: string;
  request: string;
  answer: string;
}

export interface RouteTally {
  requests: number;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  hangs: number;
  malformed: number;
  forgeableAccepted: number;
  violations: number;
  slowestMs: number;
}

export const emptyTally = (): RouteTally => ({ requests: 0, s2xx: 0, s4xx: 0, s5xx: 0, hangs: 0, malformed: 0, forgeableAccepted: 0, violations: 0, slowestMs: 0 });

/** Violations by kind, with at most `keep` examples of each. */
export class Violations {
  readonly byKind = new Map<string, number>();
  readonly examples: Example[] = [];
  constructor(private readonly keep = 3) {}

  add(example: Example): void {
    const key = `${example.where} ${example.violation}`;
    const n = (this.byKind.get(key) ?? 0) + 1;
    this.byKind.set(key, n);
    if (n <= this.keep) this.examples.push(example);
  }

  get total(): number {
    let sum = 0;
    for (const n of this.byKind.values()) sum += n;
    return sum;
  }
}

/** Shortens text for a report line, keeping its start and its length. */
export function preview(text: string, max = 300): string {
  const safe = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length <= max ? safe : `${safe.slice(0, max)}… (${text.length} chars)`;
}
