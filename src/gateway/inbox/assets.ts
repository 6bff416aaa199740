/**
 * The inbox's pages and their script and style files, plain files beside this module in public/
 * (the build copies them next to the compiled module: scripts/copy-inbox-assets.mjs), so the same
 * code serves them from the source tree (tsx, vitest) and from the package.
 */
import { fileURLToPath } from 'node:url';
import express from 'express';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

const PAGES = new Map([
  ['/', 'index.html'],
  ['/task', 'task.html'],
]);

export function servePages(): express.Router {
  const router = express.Router();
  router.get([...PAGES.keys()], (req, res, next) => {
    // Routing is loose (`/task/`, `/TASK`, `//` match too): only the exact paths are pages, the rest is not found.
    const page = PAGES.get(req.path);
    if (!page) return next();
    // `/inbox` without its slash: the pages' relative links need it.
    if (req.path === '/' && !req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, 'inbox/');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(page, { root: PUBLIC_DIR, dotfiles: 'deny' }, (error) => error && next(error));
  });
  // Revalidated on every load (ETag), so an upgraded gateway never serves a page with stale scripts.
  router.use(express.static(PUBLIC_DIR, { index: false, redirect: false, cacheControl: true, maxAge: 0 }));
  return router;
}
