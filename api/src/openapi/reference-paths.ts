/** Where the renderer's bundle and its start script are served (same origin: the CSP allows 'self' only). */
export const REFERENCE_ASSETS_PATH = "/docs/assets";
