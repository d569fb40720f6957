/**
 * Keys and tenancies: a key reaches exactly one (app_id, project_id), whatever the body says, and
 * each tenancy lives in its own Durable Object.
 */
import { env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryObject } from '../../worker/memory-object.js';
import { call, conversation, ok } from './helpers.js';
import { TEST_TENANCIES } from './keys.js';

const namespace = env['MEMORY'] as { idFromName(name: string): unknown; get(id: unknown): unknown };
const SECRET = 'The vault code is 4417 and it opens the north door.';

async function expectError(response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { detail: unknown; code: string };
  expect(body.code).toBe(code);
  expect(typeof body.detail).toBe('string');
}

describe('authentication', () => {
  it('a missing, malformed or unknown bearer key is 401 in the EverOS shape', async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Basic ZWRnZS10ZXN0LWtleS1hY21lOg==' },
      { authorization: `Bearer ${TEST_TENANCIES.acme.key}x` },
      { authorization: `Bearer ${TEST_TENANCIES.acme.key} extra` },
      { authorization: `Token ${TEST_TENANCIES.acme.key}` },
      { authorization: `Bearer ${'k'.repeat(5000)}` },
    ];
    for (const headers of cases) {
      const response = await call('search', { user_id: 'u', query: 'q' }, { headers });
      expect(response.headers.get('www-authenticate'), JSON.stringify(headers)).toBe('Bearer');
      await expectError(response, 401, 'UNAUTHENTICATED');
    }
  });

  it('authentication comes before the body is read', async () => {
    await expectError(await call('search', '{not json', { headers: {} }), 401, 'UNAUTHENTICATED');
  });

  it('the scheme is case-insensitive', async () => {
    const response = await call('search', { user_id: 'u', query: 'q' }, { headers: { authorization: `bearer ${TEST_TENANCIES.acme.key}` } });
    expect(response.status).toBe(200);
  });
});

describe('tenancy isolation', () => {
  beforeAll(async () => {
    // The same user, agent and session ids in two tenancies.
    await ok('add', conversation('s1', 'dana', 'bot', [SECRET, 'I will remember that.']), 'beta');
    await ok('flush', { session_id: 's1' }, 'beta');
    await ok('add', conversation('s1', 'dana', 'bot', ['I like jazz and long walks.', 'Good taste.']), 'acme');
    await ok('flush', { session_id: 's1' }, 'acme');
  });

  it('a body naming another tenancy is 403 on every route, and nothing is written', async () => {
    const bodies: Record<string, object> = {
      add: conversation('s9', 'dana', 'bot', ['Injected message.']),
      flush: { session_id: 's1' },
      search: { user_id: 'dana', query: 'vault code' },
      get: { user_id: 'dana' },
      delete: { user_id: 'dana' },
      cases: { agent_id: 'bot', session_id: 's1', task_intent: 'x', approach: 'y' },
      skills: { agent_id: 'bot', name: 'x', description: 'y', content: 'z' },
      knowledge: { user_id: 'dana', title: 'x', content: 'y' },
      profile: { user_id: 'dana', profile_data: { a: 1 } },
    };
    for (const [route, body] of Object.entries(bodies)) {
      for (const target of [{ app_id: 'beta', project_id: 'prod' }, { app_id: 'beta' }, { project_id: 'staging' }, { app_id: 'acme', project_id: null }]) {
        const response = await call(route, { ...body, ...target }, 'acme');
        await expectError(response, 403, 'FORBIDDEN');
      }
    }
    // beta's memory is intact and holds nothing from acme's attempts.
    const beta = await ok('search', { user_id: 'dana', query: 'vault code north door', top_k: 10 }, 'beta');
    expect(JSON.stringify(beta.data)).toContain('4417');
    expect(JSON.stringify(beta.data)).not.toContain('Injected');
    expect((await ok('get', { user_id: 'dana', memory_type: 'knowledge' }, 'beta')).data.total_count).toBe(0);
    expect((await ok('get', { agent_id: 'bot', memory_type: 'agent_skill' }, 'beta')).data.total_count).toBe(0);
  });

  it("one key never sees another tenancy's data under the same ids", async () => {
    for (const method of ['keyword', 'vector', 'hybrid', 'agentic']) {
      const acme = await ok('search', { user_id: 'dana', query: 'vault code north door', method, top_k: 10 }, 'acme');
      expect(JSON.stringify(acme.data), method).not.toContain('4417');
    }
    const listed = await ok('get', { user_id: 'dana', memory_type: 'episode' }, 'acme');
    expect(listed.data.total_count).toBe(1);
    expect(JSON.stringify(listed.data)).toContain('jazz');
    expect(JSON.stringify(listed.data)).not.toContain('4417');
  });

  it("deleting with one key leaves another tenancy's records", async () => {
    expect((await ok('delete', { user_id: 'dana' }, 'acme')).data.deleted_count).toBeGreaterThan(0);
    const beta = await ok('get', { user_id: 'dana', memory_type: 'episode' }, 'beta');
    expect(beta.data.total_count).toBe(1);
  });

  it('a key fills in its own tenancy and may name it explicitly', async () => {
    const explicit = await ok('search', { user_id: 'dana', query: 'vault', app_id: 'beta', project_id: 'prod' }, 'beta');
    expect(explicit.data.episodes[0].app_id).toBe('beta');
    // Same app, other project: a separate tenancy with its own key.
    expect((await ok('get', { user_id: 'dana' }, 'acmeStaging')).data.total_count).toBe(0);
  });

  it('each tenancy is its own Durable Object holding only its own items', async () => {
    await ok('knowledge', { user_id: 'erin', title: 'Desk', content: 'Erin sits by the window.' }, 'acme');
    const ids = (await listDurableObjectIds(namespace)).map((id) => id.toString());
    for (const name of ['acme/prod', 'beta/prod']) expect(ids).toContain((namespace.idFromName(name) as object).toString());
    for (const tenancy of ['acme/prod', 'beta/prod']) {
      const stub = namespace.get(namespace.idFromName(tenancy));
      const apps = await runInDurableObject(stub, (_: MemoryObject, state) =>
        (state.storage.sql.exec("SELECT DISTINCT json_extract(body, '$.app_id') AS app, json_extract(body, '$.project_id') AS project FROM engram_items WHERE part = 0").toArray() as { app: string; project: string }[]).map((r) => `${r.app}/${r.project}`),
      );
      expect(apps).toEqual([tenancy]);
    }
  });

  it('the object refuses a request for a tenancy that is not its own', async () => {
    const stub = namespace.get(namespace.idFromName('beta/prod')) as { fetch(request: Request): Promise<Response> };
    const forged = (tenancy: string, body: object) =>
      stub.fetch(new Request('https://engram.test/api/v1/memory/search', { method: 'POST', headers: { 'content-type': 'application/json', 'x-engram-tenancy': tenancy }, body: JSON.stringify(body) }));
    await expectError(await forged('acme/prod', { user_id: 'dana', query: 'vault', app_id: 'acme', project_id: 'prod' }), 403, 'FORBIDDEN');
    await expectError(await forged('beta/prod', { user_id: 'dana', query: 'vault', app_id: 'acme', project_id: 'prod' }), 403, 'FORBIDDEN');
    await expectError(await forged('', { user_id: 'dana', query: 'vault' }), 403, 'FORBIDDEN');
  });
});
