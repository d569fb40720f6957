/**
 * Small builders for conversations fed to a memory in tests: messages with explicit timestamps,
 * and "say this, then close the segment" in one call.
 */
import type { Memory } from '../../src/engine.js';
import type { AddMessage } from '../../src/contract/types.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Monday 2026-11-02 09:00 UTC: a fixed "now" so dates in extracted text are predictable. */
export const MONDAY_9AM = Date.UTC(2026, 10, 2, 9, 0, 0);

export interface Scoped {
  app_id?: string;
  project_id?: string;
}

/** A user message. */
export function said(sender_id: string, content: AddMessage['content'], timestamp: number, extra: Partial<AddMessage> = {}): AddMessage {
  return { sender_id, role: 'user', timestamp, content, ...extra };
}

/** An assistant message. */
export function replied(sender_id: string, content: string, timestamp: number, extra: Partial<AddMessage> = {}): AddMessage {
  return { sender_id, role: 'assistant', timestamp, content, ...extra };
}

/** Adds the messages to a session and flushes it, so they become memories now. */
export async function remember(memory: Memory, session_id: string, messages: AddMessage[], scope: Scoped = {}): Promise<void> {
  await memory.add({ session_id, ...scope, messages });
  await memory.flush({ session_id, ...scope });
}
