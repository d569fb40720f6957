/**
 * The demo's static server (`npm start`) answers whatever path a client sends: a malformed
 * percent-encoding or a target no URL can hold is a 400, and the server keeps serving.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedPath, serveDemo, type DemoServer } from '../../demo/serve.js';

/** Sends one raw request line (fetch would normalise it) and returns the status code. */
function rawStatus(server: DemoServer, target: string): Promise<number> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('the demo server', () => {
  let dir: string;
  let server: DemoServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-demo-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Engram</title>');
    server = await serveDemo({ dir, port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a malformed path with 400 and keeps serving', async () => {
    for (const target of ['/%E0%A4%A', '/%', '/assets/%ZZ.js', '/api/v1/memory/%C0', '//[']) {
      expect(await rawStatus(server, target), target).toBe(400);
    }
    expect(await rawStatus(server, '/')).toBe(200);
    expect(await rawStatus(server, '/caf%C3%A9')).toBe(200); // a page of the app, well encoded
    expect((await fetch(server.url)).status).toBe(200);
  });

  it('decodes well-formed paths and refuses the rest', () => {
    expect(decodedPath('/caf%C3%A9?x=1')).toBe('/café');
    expect(decodedPath('/%E0%A4%A')).toBeUndefined();
  });
});
