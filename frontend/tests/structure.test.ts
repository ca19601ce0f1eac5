// The page's shape, held by a test: every module at most 400 lines (the
// generated ones aside), types.ts a leaf that imports no page module, and
// no import cycle among the modules of src/.
import { describe, expect, it } from "vitest";

const MAX_LINES = 400;

/** Every .ts module of src/, by its path ("../src/views/logs.ts"). */
const sources = import.meta.glob<string>("../src/**/*.ts", { query: "?raw", import: "default", eager: true });

const generated = (path: string) => path.startsWith("../src/generated/");

/** The modules a source imports or re-exports, static, type-only and
 *  dynamic alike, as paths like the keys of sources. */
export function importsOf(path: string, src: string): string[] {
  const out: string[] = [];
  const spec = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.[^"']+)["']/gm;
  for (const m of src.matchAll(spec)) out.push(resolve(path, m[1]));
  return out;
}

function resolve(from: string, rel: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const p of rel.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  const joined = parts.join("/");
  return /\.(ts|css|json)$/.test(joined) ? joined : `${joined}.ts`;
}

/** A cycle in the graph (its modules, the first one again at the end), or
 *  null when there is none. */
export function findCycle(graph: Record<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] | null => {
    if (state.get(n) === "done") return null;
    if (state.get(n) === "open") return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, "open");
    stack.push(n);
    for (const next of graph[n] ?? []) {
      const c = visit(next);
      if (c) return c;
    }
    stack.pop();
    state.set(n, "done");
    return null;
  };
  for (const n of Object.keys(graph).sort()) {
    const c = visit(n);
    if (c) return c;
  }
  return null;
}

const graph: Record<string, string[]> = Object.fromEntries(
  Object.entries(sources).map(([path, src]) => [path, importsOf(path, src).filter((p) => p in sources)]),
);

describe("the page's modules", () => {
  it("are found", () => {
    expect(Object.keys(sources)).toContain("../src/app.ts");
    expect(Object.keys(sources)).toContain("../src/views/settings.ts");
  });

  it(`are at most ${MAX_LINES} lines each, the generated ones aside`, () => {
    const long = Object.entries(sources)
      .filter(([path]) => !generated(path))
      .map(([path, src]) => ({ path, lines: src.replace(/\n$/, "").split("\n").length }))
      .filter((m) => m.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("have types.ts as a leaf: it imports nothing of the page but the generated types", () => {
    const page = importsOf("../src/types.ts", sources["../src/types.ts"]).filter((p) => !generated(p));
    expect(page).toEqual([]);
  });

  it("import one another without a cycle", () => {
    expect(findCycle(graph)).toBeNull();
  });
});

describe("the checks themselves", () => {
  it("read every kind of import", () => {
    const src = [
      'import { a } from "./a";',
      'import type { B } from "../b";',
      'export { c } from "./views/c";',
      'import "./style.css";',
      'const m = await import("./mock");',
      'import {\n  d,\n} from "./d";',
    ].join("\n");
    expect(importsOf("../src/x.ts", src)).toEqual(["../src/a.ts", "../b.ts", "../src/views/c.ts", "../src/style.css", "../src/mock.ts", "../src/d.ts"]);
  });

  it("find a planted cycle, and none where there is none", () => {
    expect(findCycle({ a: ["b"], b: ["c"], c: ["a"] })).toEqual(["a", "b", "c", "a"]);
    expect(findCycle({ a: ["b", "c"], b: ["c"], c: [] })).toBeNull();
  });

  it("would catch the circle this split removed (types -> update -> state -> types)", () => {
    expect(findCycle({ types: ["update"], update: ["state"], state: ["types"] })).not.toBeNull();
  });
});
