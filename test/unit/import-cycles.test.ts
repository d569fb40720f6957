/**
 * The source imports in one direction: a module never reaches itself through its imports (type
 * imports and lazy `import()` included). A cycle makes load order matter and hides which concept
 * sits on which (the dialects, the write path and the engine's types once did); this keeps them
 * out. Plain reading of the import lines, no bundler: relative specifiers only (packages cannot
 * import us back).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules a file imports (static, type-only, re-exports and `import()`), as absolute paths of their sources. */
function importsOf(file: string, text: string, exists: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = resolve(dirname(file), m[1]!);
    const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find(exists);
    if (found) out.push(found);
  }
  return out;
}

/** Strongly connected components of more than one module (Tarjan), or of one that imports itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('module imports', () => {
  it('finds a cycle where there is one (the check itself)', () => {
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
    const files = new Set(['/p/x.ts', '/p/y.ts', '/p/z/index.ts']);
    const text = "import { a } from './x.js';\nimport type { B } from \"./y.js\";\nexport * from './z';\nconst m = await import('./x.js');\nimport 'node:fs';";
    expect(importsOf('/p/main.ts', text, (p) => files.has(p))).toEqual(['/p/x.ts', '/p/y.ts', '/p/z/index.ts', '/p/x.ts']);
  });

  it('src/ and worker/ import without a cycle', () => {
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'worker'))];
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'), (p) => known.has(p))]));
    expect(cycles(graph).map((c) => c.map((f) => relative(root, f)))).toEqual([]);
  });
});
