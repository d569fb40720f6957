/**
 * A plain JSON client for the scenarios that check what survived (kill trials, full disk,
 * corruption): well-formed requests, answers parsed, never throws on an HTTP error status.
 */
import { request } from 'node:http';

export interface JsonAnswer {
  status: number;
  body: unknown;
  /** Set when no answer came (timeout, reset). */
  failure?: string;
}

/** POSTs (or GETs, when `body` is undefined) JSON to the server on `port`. */
export function callJson(port: number, path: string, body: unknown, timeoutMs = 30_000): Promise<JsonAnswer> {
  return new Promise((resolve) => {
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const req = request({ host: '127.0.0.1', port, path, method: data ? 'POST' : 'GET', agent: false, headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {} });
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ status: 0, body: null, failure: 'timeout' });
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // kept as text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        resolve({ status: 0, body: null, failure: e.message });
      });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      resolve({ status: 0, body: null, failure: e.message });
    });
    req.end(data ?? undefined);
  });
}

/** Every record of `memory_type` an owner has (all pages), as the JSON of each page's data. */
export async function listAll(port: number, owner: Record<string, string>, memoryType: string, extra: Record<string, unknown> = {}): Promise<{ ok: boolean; pages: Record<string, unknown>[] }> {
  const pages: Record<string, unknown>[] = [];
  for (let page = 1; page < 1000; page++) {
    const a = await callJson(port, '/api/v1/memory/get', { ...owner, memory_type: memoryType, page, page_size: 100, ...extra });
    if (a.status !== 200) return { ok: false, pages };
    const data = (a.body as { data: Record<string, unknown> & { count: number; total_count: number } }).data;
    pages.push(data);
    if (data.count < 100 || page * 100 >= data.total_count) break;
  }
  return { ok: true, pages };
}

/** Ids of the records a listing returned, whichever list they came in. */
export function idsOf(pages: Record<string, unknown>[]): Set<string> {
  const ids = new Set<string>();
  for (const data of pages) {
    for (const key of ['episodes', 'profiles', 'agent_cases', 'agent_skills']) {
      for (const item of (data[key] as { id?: string }[] | undefined) ?? []) if (item.id) ids.add(item.id);
    }
  }
  return ids;
}
