/**
 * Names and words taken from what a user wrote become parts of regular expressions (a list's head
 * looked for in its item, a name looked for in a belonging). Escaping them is one rule shared by
 * every module of the write path, kept here, below them all, so none has to import upward for it.
 */

/** The text with every character a RegExp reads as syntax escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
