/**
 * What a delete removes. The rule is ownership, exactly: an owner is (type, id) in one app and
 * project, and a delete touches only what that owner owns.
 * - By id: the owner's record (an episode takes its facts and foresight along); an id of anyone
 *   else, or of another tenancy, is NOT_FOUND.
 * - By session, or the whole owner ("forget this user"): the owner's own records (their
 *   partition, of that session) and the owner's own messages still in a session buffer (the
 *   sender's type comes from the message's role, see `senderType`).
 * Never another owner's record, even one quoting the forgotten owner (an agent's case, a shared
 * session's episode of the other user: their memory, not this owner's), and never another
 * participant's messages in a shared buffer. The owner's entity graph follows: a link read from a
 * deleted fact goes with it, a session takes its links and the entities named only there, the
 * whole owner takes the whole graph. Pure: it reads the state, the engine commits.
 */
import type { ResolvedDelete } from './contract/requests.js';
import { createError } from './errors.js';
import type { MemoryState } from './memory-state.js';
import { sentBy, type MemoryRecord } from './records.js';

/** The storage ids of every item a delete request removes; NOT_FOUND when a named record is not the owner's. */
export function planDeletion(state: MemoryState, req: ResolvedDelete): Set<string> {
  const { scope } = req;
  const doomed = new Set<string>();
  const partition = state.partition(scope);
  // An episode takes its facts and foresight along (they live in its partition).
  const withChildren = (record: MemoryRecord) => {
    doomed.add(state.storageId(record));
    for (const c of partition?.childrenOf(record.id) ?? []) doomed.add(state.storageId(c));
  };
  if (req.memory_id) {
    const record = partition?.records.get(req.memory_id);
    if (!record) throw createError('NOT_FOUND', { details: { memory_id: req.memory_id } });
    withChildren(record);
    return doomed;
  }
  for (const r of partition?.records.values() ?? []) {
    if (req.session_id && r.session_id !== req.session_id) continue;
    withChildren(r);
  }
  for (const buffer of state.buffers.values()) {
    const first = buffer[0];
    if (!first || first.app_id !== scope.app_id || first.project_id !== scope.project_id) continue;
    if (req.session_id && first.session_id !== req.session_id) continue;
    for (const m of buffer) if (sentBy(m, scope)) doomed.add(m.id);
  }
  return doomed;
}

/**
 * The ids of the owner's graph items that go with a planned delete (they are no memories, so not
 * counted as deleted ones): by id, the links read from the deleted facts and plans; by session, that
 * session's links and the entities named in it alone; the whole owner, the whole graph.
 */
export function planGraphDeletion(state: MemoryState, req: ResolvedDelete): string[] {
  const graph = state.graph(req.scope);
  if (!graph) return [];
  const out: string[] = [];
  if (req.memory_id) {
    const partition = state.partition(req.scope);
    const ids = [req.memory_id, ...(partition?.children.get(req.memory_id) ?? [])];
    for (const id of ids) for (const r of graph.relationsOfFact(id)) out.push(r.id);
    return out;
  }
  const session = req.session_id;
  for (const r of graph.relations.values()) if (!session || r.session_id === session) out.push(r.id);
  for (const e of graph.entities.values()) if (!session || e.session_ids.every((s) => s === session)) out.push(e.id);
  return out;
}
