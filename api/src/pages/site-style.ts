import { createHash } from "node:crypto";

/**
 * The one stylesheet of every page the service serves (landing, API
 * reference, sign-in, keys, sessions, playground, consent, usage), in the
 * family of the example app's (example-app/src/styles.css): the same
 * colour variables, light and dark by `prefers-color-scheme`, rounded
 * buttons at least 44 px high, a header whose navigation marks the current
 * page (`aria-current="page"`), and a layout that holds down to a phone's
 * width (320 px). Served at {@link SITE_STYLE_PATH}, cached by its hash.
 */
export const SITE_STYLE = `/* Persona Reply service pages: light and dark, mobile first. */
:root {
  --background: #f6f7fb;
  --surface: #ffffff;
  --text: #1c1f2b;
  --muted: #555b6e;
  --border: #d5d9e4;
  --accent: #3b4fd8;
  --accent-text: #ffffff;
  --focus: #f0a500;
  --danger-background: #fdf0ef;
  --danger-border: #c2362b;
  --success-background: #edf8f0;
  --success-border: #2a7a43;
  --meter: #3b4fd8;
  --meter-full: #c2362b;
  --radius: 0.75rem;
  color-scheme: light dark;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  line-height: 1.5;
  color: var(--text);
  background: var(--background);
  -webkit-text-size-adjust: 100%;
}
@media (prefers-color-scheme: dark) {
  :root {
    --background: #12141c;
    --surface: #1c1f2b;
    --text: #eceef5;
    --muted: #a9afc2;
    --border: #353a4d;
    --accent: #8c9bff;
    --accent-text: #10131f;
    --danger-background: #3a1d1b;
    --danger-border: #ff8a7f;
    --success-background: #15301f;
    --success-border: #6fd08f;
    --meter: #8c9bff;
    --meter-full: #ff8a7f;
  }
}
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, .secret { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }
code { overflow-wrap: anywhere; }
pre { overflow-x: auto; padding: 0.75rem; background: var(--surface); border: 1px solid var(--border); border-radius: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; padding: 0.5rem 0.75rem; background: var(--surface); border-radius: var(--radius); z-index: 1; }
.skip-link:focus { top: 0.5rem; }

/* Header and navigation: one row on a phone, the brand and a "Menu" button
   (a <details>, so it opens without JavaScript) whose links drop below it. */
.site-header { position: relative; display: flex; align-items: center; gap: 0.5rem 1rem; padding: 0.5rem 1rem; background: var(--surface); border-bottom: 1px solid var(--border); }
.site-header .brand { font-weight: 700; color: var(--text); text-decoration: none; margin-right: auto; padding: 0.5rem 0; }
.site-menu > summary { display: inline-flex; align-items: center; gap: 0.5rem; min-height: 44px; padding: 0.5rem 1rem; border: 1px solid var(--border); border-radius: 999px; color: var(--accent); font-weight: 600; cursor: pointer; list-style: none; }
.site-menu > summary::-webkit-details-marker { display: none; }
/* Three bars; a cross while open. */
.site-menu > summary::before { content: ""; width: 1rem; height: 2px; background: currentColor; box-shadow: 0 -5px currentColor, 0 5px currentColor; }
.site-menu[open] > summary::before { content: "×"; width: 1rem; height: auto; background: none; box-shadow: none; font-size: 1.4rem; line-height: 1; text-align: center; }
.site-menu-panel { position: absolute; left: 0; right: 0; top: 100%; z-index: 10; display: flex; flex-direction: column; gap: 0.5rem; padding: 0.5rem 1rem 1rem; background: var(--surface); border-bottom: 1px solid var(--border); box-shadow: 0 0.75rem 1.5rem rgb(0 0 0 / 15%); }
.site-header nav ul { display: flex; flex-direction: column; gap: 0.25rem; margin: 0; padding: 0; list-style: none; }
.site-header nav a { display: block; padding: 0.5rem 0.75rem; min-height: 44px; line-height: 1.75rem; border-radius: 999px; text-decoration: none; font-weight: 600; }
.site-header nav a:hover { background: var(--background); }
.site-header nav a[aria-current="page"] { background: var(--accent); color: var(--accent-text); }
.site-header .account { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem; padding-top: 0.5rem; border-top: 1px solid var(--border); color: var(--muted); font-size: 0.875rem; overflow-wrap: anywhere; }
.site-header form { margin: 0; }
.site-header button { margin: 0; }
/* Wide screens: the menu's content in the row, its button hidden (where the
   browser lets a closed <details> show its content; elsewhere the button stays). */
@media (min-width: 56rem) {
  @supports selector(::details-content) {
    .site-menu > summary { display: none; }
    .site-menu::details-content { content-visibility: visible; }
    .site-menu-panel { position: static; flex-direction: row; align-items: center; gap: 0.5rem 1rem; padding: 0; background: none; border: 0; box-shadow: none; }
    .site-header nav ul { flex-direction: row; flex-wrap: wrap; }
    .site-header nav a { display: inline-block; }
    .site-header .account { padding-top: 0; border-top: 0; }
  }
}

/* Content */
main { flex: 1; width: 100%; max-width: 60rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.5rem; }
.lead { color: var(--muted); margin: 0 0 1rem; }
.muted { color: var(--muted); }
.pre-line { white-space: pre-line; overflow-wrap: anywhere; }
.field-error { color: var(--danger-border); font-weight: 600; }
.apply-form input[type="email"], .apply-form input[type="text"], .apply-form textarea, .apply-form select { width: 100%; max-width: 36rem; }
.site-footer { padding: 1rem; text-align: center; color: var(--muted); font-size: 0.875rem; }

/* Tables */
.table-scroll { position: relative; overflow-x: auto; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); }
/* A cue that a region scrolls sideways: a shade at an edge with more behind it
   (the "local" layers cover the shades when that edge is reached). */
.table-scroll, .chart-scroll {
  background:
    linear-gradient(to right, var(--surface) 30%, transparent) left center / 2.5rem 100% no-repeat local,
    linear-gradient(to left, var(--surface) 30%, transparent) right center / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgb(0 0 0 / 28%), transparent) left center / 0.9rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgb(0 0 0 / 28%), transparent) right center / 0.9rem 100% no-repeat scroll,
    var(--surface);
}
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.5rem 0.75rem; border-bottom: 1px solid var(--border); vertical-align: top; }
thead th { font-size: 0.875rem; color: var(--muted); }
tbody tr:last-child > * { border-bottom: 0; }
th, td { overflow-wrap: anywhere; }
.table-scroll th, .table-scroll td { overflow-wrap: normal; }
td form { margin: 0; }
/* A row's text and its buttons share one middle line (the keys list). */
table.middle td, table.middle th { vertical-align: middle; }
.table-scroll code { white-space: nowrap; overflow-wrap: normal; }
.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }

/* Forms and buttons */
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
/* :where() adds no specificity: a widget's own class (the API reference's search box) keeps its look. */
:where(input[type="text"], input[type="email"], select, textarea) { display: block; width: 100%; font: inherit; font-size: max(1rem, 16px); padding: 0.6rem 0.75rem; color: var(--text); background: var(--surface); border: 1px solid var(--border); border-radius: 0.5rem; }
textarea { resize: vertical; }
input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--focus); outline-offset: 0; border-color: var(--accent); }
input[type="checkbox"] { width: 1.1rem; height: 1.1rem; accent-color: var(--accent); vertical-align: middle; }
button, .button { display: inline-block; font: inherit; font-weight: 600; min-height: 44px; padding: 0.5rem 1.1rem; border: 1px solid var(--accent); border-radius: 999px; background: var(--accent); color: var(--accent-text); cursor: pointer; text-decoration: none; line-height: 1.6; }
button:hover, .button:hover { filter: brightness(1.08); }
button:disabled, button[aria-disabled="true"] { opacity: 0.65; cursor: progress; }
.button-quiet, td button, .site-header button { background: transparent; color: var(--accent); }
form { margin: 0 0 1rem; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
.row > * { flex: 1 1 14rem; margin: 0; }
.row > button { flex: 0 0 auto; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; }
.actions form { margin: 0; }

/* Notices */
.notice { border: 1px solid var(--border); border-left-width: 0.35rem; border-left-color: var(--accent); background: var(--surface); border-radius: var(--radius); padding: 0.75rem 1rem; margin: 1rem 0; }
.notice.error { border-color: var(--danger-border); background: var(--danger-background); }
.new-key-notice { border-color: var(--success-border); background: var(--success-background); }
.secret { word-break: break-all; padding: 0.5rem; border: 1px dashed var(--border); border-radius: 0.5rem; background: var(--surface); }

/* Playground chat: the persona's bubbles on the left, the user's on the right */
.chat-head { display: flex; flex-wrap: wrap; align-items: end; gap: 0.5rem 1rem; }
.chat-head > p { margin: 0; flex: 1 1 14rem; }
.answered-by { font-size: 0.875rem; color: var(--muted); margin: 0; overflow-wrap: anywhere; }
.chat-log { display: flex; flex-direction: column; gap: 0.6rem; margin: 1rem 0; padding: 0.75rem; list-style: none; background: var(--background); border: 1px solid var(--border); border-radius: var(--radius); min-height: 8rem; }
.chat-log:empty::before { content: "No messages yet. Write one below."; color: var(--muted); align-self: center; margin: auto; }
.turn { max-width: min(85%, 36rem); margin: 0; }
.turn.user { align-self: flex-end; }
.turn.assistant { align-self: flex-start; }
.turn .role { display: block; font-size: 0.8rem; font-weight: 600; color: var(--muted); margin: 0 0.75rem 0.15rem; }
.turn.user .role { text-align: right; }
.bubble { padding: 0.55rem 0.9rem; border-radius: 1.1rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.turn.user .bubble { background: var(--accent); color: var(--accent-text); border-bottom-right-radius: 0.3rem; }
.turn.assistant .bubble { background: var(--surface); color: var(--text); border: 1px solid var(--border); border-bottom-left-radius: 0.3rem; }
.turn .meta { display: block; font-size: 0.75rem; color: var(--muted); margin: 0.2rem 0.75rem 0; overflow-wrap: anywhere; }
.turn .variations { margin: 0.4rem 0 0; padding-left: 1.5rem; font-size: 0.875rem; }
.composer { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center; }
.composer .send-actions { display: flex; gap: 0.75rem; margin-left: auto; }
.engine-notice { font-size: 0.9rem; }
.engine-notice p { margin: 0.25rem 0; }
label.checkbox { display: inline-flex; align-items: center; gap: 0.4rem; font-weight: 400; margin: 0; }
.personify-result { margin: 0.5rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.personify-result:not(:empty) { padding: 0.55rem 0.9rem; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); }

/* Usage: figures, charts, meters */
/* Two figures a row from a phone's width up, so the four take two rows. */
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: 0.75rem; margin: 0 0 1rem; }
.stat { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 0.75rem 1rem; }
.stat dt { font-size: 0.875rem; color: var(--muted); }
.stat dd { margin: 0.25rem 0 0; font-size: 1.35rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.chart-grid { display: grid; grid-template-columns: 1fr; gap: 1rem; }
.chart { margin: 0; padding: 0.75rem 1rem; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); min-width: 0; }
.chart figcaption { font-weight: 700; margin-bottom: 0.5rem; }
.chart-legend { margin: 0 0 0.25rem; }
/* Right to left, so the region opens at its right end: the latest day and the axis. */
.chart-scroll { position: relative; overflow-x: auto; direction: rtl; }
/* The canvas itself is the wide box, so in the right-to-left scroller it overflows to the left. */
.chart-canvas { direction: ltr; min-width: 36rem; }
.chart svg.plot { display: block; width: 100%; height: auto; }
.scroll-hint { display: none; font-size: 0.8rem; margin: 0.25rem 0 0; }
/* Hollow symbols take the card's colour, light or dark (a CSS fill overrides the attribute). */
.chart svg.plot [fill="white"] { fill: var(--surface); }
.chart-summary { font-size: 0.875rem; margin: 0.5rem 0 0; }
.meter { display: inline-block; width: 8rem; max-width: 100%; height: 0.6rem; border-radius: 999px; background: var(--background); border: 1px solid var(--border); overflow: hidden; vertical-align: middle; }
.meter > span { display: block; height: 100%; background: var(--meter); }
.meter.full > span { background: var(--meter-full); background-image: repeating-linear-gradient(45deg, transparent 0 4px, rgb(0 0 0 / 25%) 4px 8px); }
td.day, .limits .number { white-space: nowrap; }
.limits th code { white-space: normal; overflow-wrap: anywhere; }
@media (min-width: 40rem) {
  main { padding: 1.5rem 1.25rem; }
  h1 { font-size: 2rem; }
}
@media (max-width: 42rem) {
  .scroll-hint { display: block; }
  /* Stacked tables: each row a block, each cell its column's name and value. */
  table.stacked thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stacked, table.stacked tbody, table.stacked tr, table.stacked td { display: block; width: 100%; }
  table.stacked tr { padding: 0.4rem 0; border-bottom: 1px solid var(--border); }
  table.stacked tbody tr:last-child { border-bottom: 0; }
  table.stacked td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: 0.15rem 0.75rem; text-align: right; }
  table.stacked td::before { content: attr(data-label); color: var(--muted); font-weight: 600; text-align: left; }
  table.stacked td code { white-space: normal; overflow-wrap: anywhere; }
  table.stacked td.actions-cell { justify-content: flex-end; }
  table.stacked th[scope="rowgroup"] { display: block; padding: 0.4rem 0.75rem 0.2rem; border: 0; }
  .limits .meter-cell { display: none; }
}
@media (max-width: 30rem) {
  th, td { padding: 0.4rem 0.5rem; }
  .stat { padding: 0.6rem 0.75rem; }
  .stat dd { font-size: 1.1rem; }
}
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
`;

/** Where the stylesheet is served; the hash in the query changes with its content. */
export const SITE_STYLE_PATH = "/assets/site.css";

/** The stylesheet's content hash (first 12 hex digits of SHA-256), for cache busting. */
export const SITE_STYLE_VERSION = createHash("sha256")
  .update(SITE_STYLE)
  .digest("hex")
  .slice(0, 12);
