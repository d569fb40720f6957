/**
 * `npm run bench:extraction`: the rules extractor against conversations written for it
 * (bench/fixtures/extraction.json: user and assistant messages, each with the facts, absolute
 * dates and names a person would note, each conversation with the profile its user stated).
 * Prints precision, recall and F1 per field for the tuned and the held-out split and for chats
 * between two people (bench/fixtures/extraction-people.json, never tuned on), the share of
 * facts with an unresolved pronoun or a broken sentence, extraction time per message (p50) and the
 * whole write path's throughput (`createMemory().add` + `flush` with the bundled embedder).
 *
 *   npm run bench:extraction -- [--split tune|heldout|people|all] [--show] [--messages 2000] [--json]
 *
 * A fact counts as found when its words match an expected fact's (token F1 ≥ 0.6, one to one)
 * and it names the same things (the same capitalised words: a pronoun read as the wrong name is a
 * wrong fact, however many words it shares).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMemory } from '../src/index.js';
import { createDefaultEmbedder } from '../src/models/load-static-model.js';
import type { BufferedMessage } from '../src/records.js';
import type { Segment } from '../src/write/extraction.js';
import { english } from '../src/write/language.js';
import { mergeProfile, type ProfileHistoryEntry } from '../src/write/profile-rules.js';
import { extractWith, readSegment } from '../src/write/rules-extractor.js';

interface FixtureMessage { role: 'user' | 'assistant'; text: string; facts: string[]; dates: string[]; entities: string[] }
/** `other`: the second speaker's name, in the chats between people (their messages have the assistant role). */
interface Conversation { id: string; split: Split; user: string; other?: string; start: string; messages: FixtureMessage[]; profile: Record<string, unknown> }
type Split = 'tune' | 'heldout' | 'people';
/** The second speaker's name: the friend in a chat between people, else the assistant. */
const otherName = (c: Conversation) => c.other ?? 'Assistant';

const { values } = parseArgs({ options: { split: { type: 'string', default: 'all' }, show: { type: 'boolean', default: false }, messages: { type: 'string', default: '2000' }, json: { type: 'boolean', default: false } } });
const fixture = JSON.parse(readFileSync(new URL('./fixtures/extraction.json', import.meta.url), 'utf8')) as { conversations: Conversation[] };
// Chats between two people, written after the rules were fixed and never used to change them.
const people = JSON.parse(readFileSync(new URL('./fixtures/extraction-people.json', import.meta.url), 'utf8')) as { conversations: Conversation[] };
const language = await english();

function segmentOf(c: Conversation): Segment {
  const start = Date.parse(c.start);
  const messages: BufferedMessage[] = c.messages.map((m, i) => ({
    id: `${c.id}-${i}`, app_id: 'default', project_id: 'default', session_id: c.id, seq: i,
    sender_id: (m.role === 'user' ? c.user : otherName(c)).toLowerCase(), sender_name: m.role === 'user' ? c.user : otherName(c),
    role: m.role, timestamp: start + i * 60_000, content: m.text,
  }) as BufferedMessage);
  return { id: `mc-${c.id}`, app_id: 'default', project_id: 'default', session_id: c.id, messages };
}

class Score {
  tp = 0; fp = 0; fn = 0;
  add(tp: number, fp: number, fn: number) { this.tp += tp; this.fp += fp; this.fn += fn; }
  get p() { return this.tp + this.fp ? this.tp / (this.tp + this.fp) : 1; }
  get r() { return this.tp + this.fn ? this.tp / (this.tp + this.fn) : 1; }
  get f1() { return this.p + this.r ? (2 * this.p * this.r) / (this.p + this.r) : 0; }
}

const words = (s: string) => s.toLowerCase().replace(/'s\b/g, '').match(/[\p{L}\p{N}]+/gu) ?? [];
/** Token F1 of two sentences (CJK compared by characters). */
function similarity(a: string, b: string): number {
  const split = (s: string) => (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(s) ? [...s.replace(/\s/g, '')] : words(s));
  const x = split(a);
  const y = split(b);
  const bag = new Map<string, number>();
  for (const w of y) bag.set(w, (bag.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of x) if ((bag.get(w) ?? 0) > 0) { common++; bag.set(w, bag.get(w)! - 1); }
  return common === 0 ? 0 : (2 * common) / (x.length + y.length);
}
/**
 * The names a fact mentions: its capitalised words after the first (the first is capitalised
 * anyway), lower-cased. A fact that shares most words with the expected one but names another
 * thing ("Chloe checks on Bristol again" for "Chloe checks on the tortoise again": a pronoun read
 * as the wrong antecedent) is another fact.
 */
const namesAfterFirst = (s: string) => (s.match(/[\p{L}\p{N}'’-]+/gu) ?? []).slice(1).filter((w) => /^\p{Lu}/u.test(w)).map((w) => w.replace(/['’]s$/u, '').toLowerCase());
/** Same fact: token F1 ≥ 0.6, and each fact's names are among the other's words (in any case: "madrid" is Madrid). */
function sameFact(predicted: string, expected: string): boolean {
  if (similarity(predicted, expected) < 0.6) return false;
  const has = (fact: string) => new Set(words(fact));
  const inPredicted = has(predicted);
  const inExpected = has(expected);
  return namesAfterFirst(expected).every((n) => inPredicted.has(n)) && namesAfterFirst(predicted).every((n) => inExpected.has(n));
}
/** One-to-one matches of predicted against expected items. */
function match(predicted: string[], expected: string[], same: (a: string, b: string) => boolean): { tp: number; missed: string[]; extra: string[] } {
  const left = [...expected];
  const extra: string[] = [];
  for (const p of predicted) {
    const i = left.findIndex((e) => same(p, e));
    if (i >= 0) left.splice(i, 1);
    else extra.push(p);
  }
  return { tp: expected.length - left.length, missed: left, extra };
}
const exact = (a: string, b: string) => a.toLowerCase().trim() === b.toLowerCase().trim();

const PRONOUN = /\b(I|me|my|mine|myself|we|us|our|you|your|he|him|his|she|her|hers|they|them|their|it|its)\b/i;
function broken(fact: string): boolean {
  if (/said: /.test(fact)) return false; // CJK kept as said
  return !/^[\p{Lu}\p{N}]/u.test(fact) || !/[.!?]$/.test(fact) || words(fact).length < 3 || /\b(?:St|Dr|Mr|Mrs|Ms|e\.g|i\.e)\.$/.test(fact) || (fact.match(/\(/g)?.length ?? 0) !== (fact.match(/\)/g)?.length ?? 0);
}

function evaluate(conversations: Conversation[]) {
  const fields = { facts: new Score(), dates: new Score(), entities: new Score() } as Record<string, Score>;
  const profile = new Score();
  const perProfileField = new Map<string, Score>();
  let factCount = 0; let unresolved = 0; let brokenCount = 0;
  const notes: string[] = [];
  for (const c of conversations) {
    const segment = segmentOf(c);
    const extraction = extractWith(language, segment);
    const readings = readSegment(segment, new Map([[c.user.toLowerCase(), c.user], [otherName(c).toLowerCase(), otherName(c)]]), language);
    const statements = extraction.episodes.flatMap((e) => [...e.facts, ...e.foresight]);
    c.messages.forEach((m, i) => {
      const id = `${c.id}-${i}`;
      const facts = statements.filter((s) => s.source_message_ids.includes(id)).map((s) => s.content);
      for (const f of facts) {
        factCount++;
        if (!/said: /.test(f) && PRONOUN.test(f)) { unresolved++; notes.push(`  pronoun  ${f}`); }
        if (broken(f)) { brokenCount++; notes.push(`  broken   ${f}`); }
      }
      const fm = match(facts, m.facts, sameFact);
      fields['facts']!.add(fm.tp, fm.extra.length, fm.missed.length);
      const reading = readings[i]!;
      const dates = [...new Set(reading.dates.map((d) => d.label))];
      const dm = match(dates, m.dates, exact);
      fields['dates']!.add(dm.tp, dm.extra.length, dm.missed.length);
      const entities = [...new Set(reading.mentioned.filter((x) => x.proper).map((x) => x.name))];
      const em = match(entities, m.entities, exact);
      fields['entities']!.add(em.tp, em.extra.length, em.missed.length);
      if (values.show && (fm.missed.length || fm.extra.length || dm.missed.length || dm.extra.length || em.missed.length || em.extra.length)) {
        notes.push(`[${c.id} #${i}] ${m.text}`);
        for (const x of fm.missed) notes.push(`  - fact    ${x}`);
        for (const x of fm.extra) notes.push(`  + fact    ${x}`);
        if (dm.missed.length || dm.extra.length) notes.push(`  dates     expected ${JSON.stringify(m.dates)} got ${JSON.stringify(dates)}`);
        if (em.missed.length || em.extra.length) notes.push(`  entities  expected ${JSON.stringify(m.entities)} got ${JSON.stringify(entities)}`);
      }
    });
    const update = extraction.profiles.find((p) => p.user_id === c.user.toLowerCase())?.update ?? {};
    const stored = mergeProfile({}, update);
    const items = (p: Record<string, unknown>, history: Record<string, unknown[]>) => {
      const out: string[] = [];
      for (const [k, v] of Object.entries(p)) {
        if (k === 'history' || k === 'sources' || k === 'summary') continue;
        for (const x of Array.isArray(v) ? v : [v]) out.push(`${k}=${String(x).toLowerCase()}`);
      }
      for (const [k, v] of Object.entries(history)) for (const x of v) out.push(`history.${k}=${String(x).toLowerCase()}`);
      return out;
    };
    const storedHistory: Record<string, unknown[]> = {};
    for (const h of (stored['history'] as ProfileHistoryEntry[] | undefined) ?? []) (storedHistory[h.field] ??= []).push(h.value);
    const { history: expectedHistory, ...expectedFields } = c.profile as { history?: Record<string, unknown[]> };
    const got = items(stored, storedHistory);
    const want = items(expectedFields, expectedHistory ?? {});
    const pm = match(got, want, exact);
    profile.add(pm.tp, pm.extra.length, pm.missed.length);
    for (const x of [...got, ...want]) perProfileField.set(x.split('=')[0]!.replace(/^history\..*/, 'history'), perProfileField.get(x.split('=')[0]!.replace(/^history\..*/, 'history')) ?? new Score());
    for (const x of want) { const s = perProfileField.get(x.split('=')[0]!.replace(/^history\..*/, 'history'))!; if (got.includes(x)) s.add(1, 0, 0); else s.add(0, 0, 1); }
    for (const x of got) if (!want.includes(x)) perProfileField.get(x.split('=')[0]!.replace(/^history\..*/, 'history'))!.add(0, 1, 0);
    if (values.show && (pm.missed.length || pm.extra.length)) notes.push(`[${c.id} profile] missing ${JSON.stringify(pm.missed)} extra ${JSON.stringify(pm.extra)}`);
  }
  return { fields, profile, perProfileField, factCount, unresolved, brokenCount, notes, messages: conversations.reduce((n, c) => n + c.messages.length, 0) };
}

function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

/** Per-message extraction time: each message alone as a segment, after a warm-up round. */
function speed(conversations: Conversation[]): { p50: number; p90: number } {
  const singles = conversations.flatMap((c) => segmentOf(c).messages.map((m) => ({ ...segmentOf(c), messages: [m] })));
  for (const s of singles) extractWith(language, s);
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const s of singles) {
      const t0 = performance.now();
      extractWith(language, s);
      times.push(performance.now() - t0);
    }
  }
  return { p50: percentile(times, 0.5), p90: percentile(times, 0.9) };
}

/**
 * Messages per second through the public write path: add in sessions of 10, then flush. Also per
 * second of this process's CPU time, which a machine shared with other work does not distort.
 */
async function throughput(conversations: Conversation[], total: number): Promise<{ wall: number; cpu: number }> {
  const embedder = await createDefaultEmbedder();
  // Loading is not writing: the embedder's vocabulary stem index, built on the first word it does
  // not know, is built before the clock starts, as the language model above already is.
  await embedder.embed(['zzqxw']);
  const memory = await createMemory({ embedder });
  const pool = conversations.flatMap((c) => c.messages.map((m) => ({ ...m, user: c.user })));
  const base = Date.UTC(2026, 10, 30, 9);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let s = 0; s * 10 < total; s++) {
    const messages = Array.from({ length: 10 }, (_, i) => {
      const m = pool[(s * 10 + i) % pool.length]!;
      return { sender_id: m.role === 'user' ? 'user' : 'assistant', sender_name: m.role === 'user' ? m.user : 'Assistant', role: m.role, timestamp: base + s * 1000 + i, content: m.text };
    });
    await memory.add({ session_id: `s${s}`, messages });
    await memory.flush({ session_id: `s${s}` });
  }
  const rate = total / ((performance.now() - t0) / 1000);
  const cpu = process.cpuUsage(cpu0);
  await memory.close();
  return { wall: rate, cpu: total / ((cpu.user + cpu.system) / 1e6) };
}

const splits: readonly Split[] = values.split === 'all' ? ['tune', 'heldout', 'people'] : [values.split as Split];
const report: Record<string, unknown> = {};
const f = (x: number) => x.toFixed(3);
for (const split of splits) {
  const conversations = [...fixture.conversations, ...people.conversations].filter((c) => c.split === split);
  const r = evaluate(conversations);
  report[split] = r;
  if (values.json) continue;
  console.log(`\n${split}: ${conversations.length} conversations, ${r.messages} messages`);
  console.log('field        precision  recall   F1');
  for (const [name, s] of [...Object.entries(r.fields), ['profile', r.profile] as const]) console.log(`${name.padEnd(12)} ${f(s.p)}      ${f(s.r)}    ${f(s.f1)}`);
  for (const [name, s] of [...r.perProfileField.entries()].sort()) console.log(`  profile.${name.padEnd(10)} ${f(s.p)}  ${f(s.r)}  ${f(s.f1)}`);
  console.log(`facts: ${r.factCount}; with an unresolved pronoun ${(100 * r.unresolved / Math.max(1, r.factCount)).toFixed(1)}%; broken sentences ${(100 * r.brokenCount / Math.max(1, r.factCount)).toFixed(1)}%`);
  if (r.notes.length) console.log(r.notes.join('\n'));
}
const t = speed(fixture.conversations);
const rate = await throughput(fixture.conversations, Number(values.messages));
if (values.json) console.log(JSON.stringify({ ...report, extraction_ms_p50: t.p50, extraction_ms_p90: t.p90, write_path_messages_per_s: rate.wall, write_path_messages_per_cpu_s: rate.cpu }));
else console.log(`\nextraction: p50 ${t.p50.toFixed(3)} ms/message, p90 ${t.p90.toFixed(3)} ms (each message alone, ${fixture.conversations.reduce((n, c) => n + c.messages.length, 0)} messages × 5)\nwrite path: ${rate.wall.toFixed(0)} messages/s wall, ${rate.cpu.toFixed(0)} per CPU second (createMemory().add + flush, createDefaultEmbedder, ${values.messages} messages in sessions of 10)`);
