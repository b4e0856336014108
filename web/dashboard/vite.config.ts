import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dashboard single-page app. Build: `vite build web/dashboard` (from the repo root).
// Output: dist/dashboard/, served by the backend at `/` with an index.html fallback.
// Dev: `vite web/dashboard` proxies /api (and the SSE stream) to the backend at VITE_PROXY_TARGET.
const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../dist/dashboard', import.meta.url));
const proxyTarget = process.env['VITE_PROXY_TARGET'] ?? 'http://localhost:3000';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: {
      '/api': { target: proxyTarget, changeOrigin: true, ws: true },
      '/widget.js': { target: proxyTarget, changeOrigin: true },
    },
  },
});
