import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Built into dist/ (git-ignored) with a manifest; Flask serves index.html for every app route
// and the hashed assets under /assets/ with long cache headers (workbench_app/page_shell/web_app.py).
export default defineConfig({
  plugins: [react()],
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    fs: { allow: ["..", "../../pipelines/design"] },
    proxy: { "/api": "http://127.0.0.1:8080" },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
