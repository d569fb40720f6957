/**
 * What a delete removes. By id: the record (an episode takes its facts and foresight along). By
 * session, or the whole owner ("forget this user"): the owner's records, every record of another
 * owner in the same project that holds their words (an agent's case quotes the user), and the
 * buffers of the conversations they took part in. Pure: it reads the state, the engine commits.
 */
import type { ResolvedDelete } from './contract/requests.js';
import { createError } from './errors.js';
import type { MemoryState } from './memory-state.js';
import { partitionKey, type BufferedMessage, type MemoryRecord } from './records.js';

/** The ids of every item a delete request removes; NOT_FOUND when a named record is not the owner's. */
export function planDeletion(state: MemoryState, req: ResolvedDelete): Set<string> {
  const { scope } = req;
  const doomed = new Set<string>();
  // An episode takes its facts and foresight along, whichever partition it lives in.
  const withChildren = (record: MemoryRecord) => {
    doomed.add(record.id);
    for (const c of state.partitions.get(partitionKey(record))?.childrenOf(record.id) ?? []) doomed.add(c.id);
  };
  const sameProject = (r: MemoryRecord | BufferedMessage) => r.app_id === scope.app_id && r.project_id === scope.project_id;
  const mentions = (r: MemoryRecord) => sameProject(r) && (partitionKey(r) === partitionKey(scope) || r.sender_ids.includes(scope.owner_id));
  if (req.memory_id) {
    const record = state.records.get(req.memory_id);
    if (!record || partitionKey(record) !== partitionKey(scope)) throw createError('NOT_FOUND', { details: { memory_id: req.memory_id } });
    withChildren(record);
    return doomed;
  }
  for (const r of state.records.values()) {
    if (!mentions(r)) continue;
    if (req.session_id && r.session_id !== req.session_id) continue;
    withChildren(r);
  }
  for (const buffer of state.buffers.values()) {
    const first = buffer[0];
    if (!first || !sameProject(first) || (req.session_id && first.session_id !== req.session_id)) continue;
    if (buffer.some((m) => m.sender_id === scope.owner_id)) for (const m of buffer) doomed.add(m.id);
  }
  return doomed;
}
