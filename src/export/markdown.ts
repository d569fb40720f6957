/**
 * A memory as Markdown a person can read: one file per owner and kind
 * (`users/<id>/episodes.md`, `agents/<id>/cases.md`, …). Written for people, not for re-import:
 * the JSON bundle is the lossless format.
 */
import { isMemoryRecord, type MemoryRecord, type StoredItem } from '../records.js';
import { iso } from '../search/shape.js';

export interface MarkdownFile {
  path: string;
  content: string;
}

const FILE_OF: Record<MemoryRecord['kind'], string> = {
  episode: 'episodes',
  atomic_fact: 'episodes',
  foresight: 'episodes',
  profile: 'profile',
  agent_case: 'cases',
  agent_skill: 'skills',
  knowledge: 'knowledge',
};

const line = (text: string) => text.replace(/\r?\n/g, '\n  ');

function renderRecord(record: MemoryRecord, children: MemoryRecord[]): string {
  switch (record.kind) {
    case 'episode': {
      const facts = children.filter((c) => c.kind === 'atomic_fact').map((c) => `- ${line((c as { content: string }).content)}`);
      const plans = children.filter((c) => c.kind === 'foresight').map((c) => `- ${line((c as { content: string }).content)}`);
      return [
        `## ${record.subject}`,
        `*${iso(record.timestamp)} · session ${record.session_id ?? '—'} · ${record.sender_ids.join(', ')} · ${record.id}*`,
        '',
        record.summary,
        '',
        record.episode,
        ...(facts.length ? ['', '**Facts**', ...facts] : []),
        ...(plans.length ? ['', '**Plans**', ...plans] : []),
      ].join('\n');
    }
    case 'profile':
      return ['## Profile', `*updated ${iso(record.updated_at)}*`, '', '```json', JSON.stringify(record.profile_data, null, 2), '```'].join('\n');
    case 'agent_case':
      return [`## ${record.task_intent}`, `*${iso(record.timestamp)} · quality ${record.quality_score} · ${record.id}*`, '', record.approach, ...(record.key_insight ? ['', `> ${record.key_insight}`] : [])].join('\n');
    case 'agent_skill':
      return [`## ${record.name}`, `*confidence ${record.confidence} · maturity ${record.maturity_score} · ${record.id}*`, '', record.description, '', record.content].join('\n');
    case 'knowledge':
      return [`## ${record.title}`, `*${iso(record.timestamp)}${record.source ? ` · ${record.source}` : ''} · ${record.id}*`, '', record.content].join('\n');
    default:
      return '';
  }
}

/** Renders every owner's memories as Markdown files, newest first within a file. */
export function toMarkdown(items: readonly StoredItem[]): MarkdownFile[] {
  const records = items.filter(isMemoryRecord);
  const children = new Map<string, MemoryRecord[]>();
  for (const r of records) if (r.parent_id && (r.kind === 'atomic_fact' || r.kind === 'foresight')) children.set(r.parent_id, [...(children.get(r.parent_id) ?? []), r]);
  const files = new Map<string, MemoryRecord[]>();
  for (const r of records) {
    if (r.kind === 'atomic_fact' || r.kind === 'foresight') continue; // rendered under their episode
    const path = `${r.app_id}/${r.project_id}/${r.owner_type}s/${r.owner_id}/${FILE_OF[r.kind]}.md`;
    files.set(path, [...(files.get(path) ?? []), r]);
  }
  return [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, list]) => {
      const [app, project, owners, owner, file] = path.split('/');
      const title = `# ${file!.replace('.md', '')} of ${owners!.slice(0, -1)} ${owner} (${app}/${project})`;
      const body = list.sort((a, b) => b.timestamp - a.timestamp).map((r) => renderRecord(r, (children.get(r.id) ?? []).sort((a, b) => a.timestamp - b.timestamp)));
      return { path, content: `${title}\n\n${body.join('\n\n---\n\n')}\n` };
    });
}
