import { defineConfig } from "vitest/config";

// base "./" so the built files work when Wails embeds dist/ and serves it
// from its own origin (or from a file path).
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    assetsInlineLimit: 0,
  },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
  test: {
    environment: "jsdom",
    include: ["tests/**/*.test.ts"],
    // The stylesheet's text, for the tests that check it animates nothing
    // forever (tests/quiet.test.ts imports it with ?raw).
    css: { include: [/style\.css/] },
  },
});
