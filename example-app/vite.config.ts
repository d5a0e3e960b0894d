import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `npm run dev`: Vite serves the front end on EXAMPLE_PORT (default 5173) and
// proxies /api to the express server, which scripts/dev.mjs starts on
// EXAMPLE_API_PORT (default 5174). `npm run build`: the front end goes to
// dist/web, which the express server serves in production.
const apiPort = Number(process.env.EXAMPLE_API_PORT ?? 5174);
// The same host names the express server allows (server/host-check.ts), so
// `npm run dev` answers the same Host values as `npm start`.
const allowedHosts = (process.env.EXAMPLE_ALLOWED_HOSTS ?? "")
  .split(",")
  .map((host) => host.trim())
  .filter((host) => host !== "");

export default defineConfig({
  plugins: [react()],
  // No .env file is read into the front end: its variables (SERVICE_API_KEY
  // above all) are the server's, and nothing the browser needs lives there.
  envDir: false,
  build: {
    outDir: "dist/web",
    emptyOutDir: true,
    manifest: true,
  },
  server: {
    host: process.env.EXAMPLE_HOST ?? "127.0.0.1",
    port: Number(process.env.EXAMPLE_PORT ?? 5173),
    allowedHosts,
    proxy: { "/api": `http://127.0.0.1:${apiPort}` },
  },
});
