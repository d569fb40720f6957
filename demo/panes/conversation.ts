/**
 * Conversation: write messages as the user or the assistant into a session, flush it, or load
 * the sample conversations. Shows what waits in the session's buffer and what was extracted.
 */
import type { GetResponse } from '../../src/contract/types.js';
import { describeError, field, h, render, say, statusLine, pane } from '../dom.js';
import { episodeView, messageView } from '../memory-views.js';
import { displayName, SAMPLE_CONVERSATIONS, seedSamples } from '../sample-conversations.js';
import { identityProblem, rememberSessions, type AppContext } from '../store.js';
import { bytesToBase64 } from '../../src/store/serialize.js';

/** A chosen file as a content item: its bytes inline, its kind from its MIME type or extension. */
async function attachmentItem(file: File, caption: string): Promise<Record<string, unknown>> {
  const mime = file.type || (/\.(md|markdown)$/i.test(file.name) ? 'text/markdown' : /\.html?$/i.test(file.name) ? 'text/html' : /\.pdf$/i.test(file.name) ? 'application/pdf' : 'text/plain');
  const type = mime === 'application/pdf' ? 'pdf' : mime.startsWith('image/') ? 'image' : mime.startsWith('audio/') ? 'audio' : 'doc';
  const base64 = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
  return { type, name: file.name, mime_type: mime, base64, ...(caption ? { [type === 'audio' ? 'transcript' : 'caption']: caption } : {}) };
}

/** The Conversation pane. */
export function conversationPane(ctx: AppContext): HTMLElement {
  const { store } = ctx;
  const session = h('input', { type: 'text', name: 'session', autocomplete: 'off', list: 'known-sessions', required: true, value: store.get().identity.sessionId, spellcheck: 'false' });
  const newSession = h('button', { type: 'button', class: 'secondary' }, 'New session');
  const asUser = h('input', { type: 'radio', name: 'speaker', value: 'user', checked: true, id: 'speaker-user' });
  const asAssistant = h('input', { type: 'radio', name: 'speaker', value: 'assistant', id: 'speaker-assistant' });
  const userLabel = h('span');
  const agentLabel = h('span');
  const text = h('textarea', { name: 'message', rows: 3, placeholder: 'e.g. I just moved to Porto and I work as a nurse.' });
  const file = h('input', { type: 'file', name: 'attachment', accept: 'image/*,application/pdf,.md,.markdown,.txt,.html,text/markdown,text/plain,text/html' });
  const caption = h('input', { type: 'text', name: 'caption', autocomplete: 'off', placeholder: 'e.g. Our tent at the Lofoten campsite' });
  const add = h('button', { type: 'submit' }, 'Add message');
  const flush = h('button', { type: 'button', class: 'secondary' }, 'Flush session');
  const composerStatus = statusLine();

  const composer = h(
    'form',
    { class: 'card', 'aria-labelledby': 'composer-title' },
    h('h3', { id: 'composer-title' }, 'Add a message'),
    h('div', { class: 'row' }, field('Session id', session), h('div', { class: 'field align-end' }, newSession)),
    h(
      'fieldset',
      { class: 'inline' },
      h('legend', null, 'Speaker'),
      h('label', { for: 'speaker-user' }, asUser, ' User ', userLabel),
      h('label', { for: 'speaker-assistant' }, asAssistant, ' Assistant ', agentLabel),
    ),
    field('Message', text, 'Enter adds the message (Shift+Enter for a new line). It is timestamped now.'),
    h(
      'div',
      { class: 'row' },
      field('Attach an image or a document', file, 'A PDF, Markdown, HTML or text file is read on this device; find it later by what it says.'),
      field('Caption', caption, 'What the image shows: an image is found by its caption.'),
    ),
    h('div', { class: 'actions' }, add, flush),
    composerStatus,
  );

  const seed = h('button', { type: 'button' }, 'Seed a sample conversation');
  const seedStatus = statusLine();
  const samples = h(
    'div',
    { class: 'card', 'aria-labelledby': 'samples-title', role: 'group' },
    h('h3', { id: 'samples-title' }, 'Sample data'),
    h('p', null, `Loads ${SAMPLE_CONVERSATIONS.length} dated conversations (March–May 2026) between the user and the assistant: a trip to Lisbon, a dog, work, food preferences, and two note-summarising tasks. The last one stays in the buffer, unflushed.`),
    h('div', { class: 'actions' }, seed),
    seedStatus,
  );

  const transcriptTitle = h('h3', { id: 'transcript-title' });
  const transcript = h('div', { class: 'transcript' });
  const view = h('section', { class: 'card', 'aria-labelledby': 'transcript-title' }, transcriptTitle, transcript);

  const identity = () => store.get().identity;

  /** Says why nothing can be written (an invalid id in the header) and returns true, or returns false. */
  const refused = (line: HTMLElement): boolean => {
    const problem = identityProblem(store.get());
    if (problem) say(line, `${problem}. Nothing was written: fix it at the top first.`, 'error');
    return problem !== null;
  };

  const showSpeakers = () => {
    userLabel.textContent = `(${identity().userId})`;
    agentLabel.textContent = `(${identity().agentId})`;
  };

  async function refresh(): Promise<void> {
    const sessionId = identity().sessionId;
    render(transcriptTitle, 'Session ', h('code', null, sessionId));
    if (!sessionId) return render(transcript, h('p', { class: 'meta' }, 'Pick a session id.'));
    try {
      const memory = await ctx.memory;
      const { data } = (await memory.get({ user_id: identity().userId, memory_type: 'episode', filters: { session_id: sessionId }, page_size: 50, sort_order: 'asc' })) as GetResponse;
      render(
        transcript,
        h('h4', null, `Waiting in the buffer (${data.unprocessed_messages.length})`),
        data.unprocessed_messages.length
          ? h('ol', { class: 'messages' }, data.unprocessed_messages.map(messageView))
          : h('p', { class: 'meta' }, `No messages of ${identity().userId} are waiting in this session.`),
        h('h4', null, `Extracted from this session (${data.episodes.length})`),
        data.episodes.length ? data.episodes.map((e) => episodeView(e)) : h('p', { class: 'meta' }, 'Nothing yet: messages become memories when the session is flushed, or when the conversation pauses for 4 hours or a new day begins.'),
      );
    } catch (error) {
      render(transcript, h('p', { class: 'error' }, describeError(error)));
    }
  }

  session.addEventListener('change', () => {
    const sessionId = session.value.trim();
    store.set((s) => ({ identity: { ...s.identity, sessionId } }));
  });

  newSession.addEventListener('click', () => {
    const sessionId = `chat-${new Date().toISOString().slice(0, 16).replace(/[-:T]/g, '')}`;
    session.value = sessionId;
    store.set((s) => ({ identity: { ...s.identity, sessionId } }));
    rememberSessions(store, sessionId);
    text.focus();
  });

  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });

  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const written = text.value.trim();
      const sessionId = session.value.trim();
      const attached = file.files?.[0];
      if ((!written && !attached) || !sessionId) return say(composerStatus, 'Write a message (or attach a file) and a session id first.', 'error');
      if (refused(composerStatus)) return;
      const role = asAssistant.checked ? 'assistant' : 'user';
      const senderId = role === 'user' ? identity().userId : identity().agentId;
      add.disabled = true;
      try {
        const memory = await ctx.memory;
        const content = attached ? [...(written ? [{ type: 'text', text: written }] : []), await attachmentItem(attached, caption.value.trim())] : written;
        const { data, notices } = await memory.add({ session_id: sessionId, messages: [{ id: crypto.randomUUID(), sender_id: senderId, sender_name: displayName(senderId), role, timestamp: Date.now(), content }] });
        text.value = '';
        file.value = '';
        caption.value = '';
        rememberSessions(store, sessionId);
        const added = data.status === 'extracted' ? 'Added; the earlier part of the conversation was extracted.' : `Added to the buffer of ${sessionId}.`;
        say(composerStatus, notices?.length ? `${added} ${notices.map((n) => n.message).join(' ')}` : added, notices?.length ? 'error' : 'ok');
      } catch (error) {
        say(composerStatus, describeError(error), 'error');
      } finally {
        add.disabled = false;
        text.focus();
      }
    })();
  });

  flush.addEventListener('click', () => {
    void (async () => {
      flush.disabled = true;
      try {
        const memory = await ctx.memory;
        const { data } = await memory.flush({ session_id: session.value.trim() });
        say(composerStatus, data.status === 'extracted' ? 'Flushed: the buffered messages are now memories.' : 'Nothing was waiting in this session.', 'ok');
      } catch (error) {
        say(composerStatus, describeError(error), 'error');
      } finally {
        flush.disabled = false;
      }
    })();
  });

  seed.addEventListener('click', () => {
    void (async () => {
      if (refused(seedStatus)) return;
      seed.disabled = true;
      const { userId, agentId } = identity();
      try {
        const memory = await ctx.memory;
        say(seedStatus, 'Seeding…');
        const count = await seedSamples(memory, userId, agentId, (done, total) => say(seedStatus, `Seeding ${done} of ${total} conversations…`));
        rememberSessions(store, ...SAMPLE_CONVERSATIONS.map((c) => c.session_id).reverse());
        say(seedStatus, `Loaded ${SAMPLE_CONVERSATIONS.length} conversations (${count} messages) for ${userId} and ${agentId}. Try the Search pane: "where is Maya travelling?"`.replace('Maya', displayName(userId)), 'ok');
      } catch (error) {
        say(seedStatus, describeError(error), 'error');
      } finally {
        seed.disabled = false;
      }
    })();
  });

  let shown = '';
  store.subscribe((state) => {
    showSpeakers();
    if (document.activeElement !== session) session.value = state.identity.sessionId;
    const key = `${state.revision}|${state.identity.sessionId}|${state.identity.userId}|${state.engine.status}`;
    if (key !== shown && state.engine.status === 'ready') {
      shown = key;
      void refresh();
    }
  });
  showSpeakers();

  return pane(
    'conversation',
    'Conversation',
    'Send messages the way an app would. They wait in a buffer until the conversation pauses or you flush it; then Engram extracts an episode, atomic facts, plans, a profile of the user and, for the assistant, a case of what it did.',
    h('div', { class: 'grid two' }, composer, samples),
    view,
  );
}
