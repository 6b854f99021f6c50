// The <ffn-exercise> element's stylesheet: the shared theme plus the exercise's own parts and its --ffn-* variables.
import { themeCss } from '../../element-base.js';

// The four elements share one theme (web/element-base.js: --ffn-font, --ffn-fg, --ffn-bg, --ffn-surface,
// --ffn-accent...); the exercise adds --ffn-pass and --ffn-fail, and sizes its editor with --ffn-editor-height
// and --ffn-code-size.
export const STYLE = `${themeCss}
:host {
  --_pass: var(--ffn-pass, #1a7f37);
  --_fail: var(--ffn-fail, #c62828);
  --_editor-height: var(--ffn-editor-height, 18rem);
  --_code-size: var(--ffn-code-size, 13px);
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { --_pass: var(--ffn-pass, #6fd08c); --_fail: var(--ffn-fail, #ff8a80); }
}
:host([theme="dark"]) { --_pass: var(--ffn-pass, #6fd08c); --_fail: var(--ffn-fail, #ff8a80); }
:host {
  display: block;
  font-family: var(--_font);
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: 1rem 1.1rem;
  line-height: 1.5;
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
header { display: flex; align-items: baseline; gap: .75rem; flex-wrap: wrap; }
h3 { margin: 0; font-size: 1.1rem; }
.level { color: var(--_muted); font-size: .85rem; }
.badge {
  margin-left: auto; font-size: .8rem; padding: .1rem .55rem; border-radius: 999px; border: 1px solid currentColor;
}
.badge.passed { color: var(--_pass); }
.badge.attempted { color: var(--_muted); }
.badge:empty { display: none; }
code, pre, .editor { font-family: var(--_mono); }
code { background: var(--_surface); padding: 0 .2em; border-radius: 3px; font-size: .92em; }
.examples { margin: .4rem 0; padding-left: 1.2rem; font-size: .9rem; }
.examples li { margin: .15rem 0; }
.toolkit, .keys { color: var(--_muted); font-size: .82rem; margin: .3rem 0; }
.editor { display: grid; grid-template-columns: auto 1fr; border: 1px solid var(--_border); border-radius: 6px;
  background: var(--_surface); height: var(--_editor-height); overflow: hidden; font-size: var(--_code-size);
  content-visibility: auto; }
.gutter { overflow: hidden; padding: .5rem .4rem .5rem .6rem; text-align: right; color: var(--_muted);
  user-select: none;
  border-right: 1px solid var(--_border); line-height: 1.5; white-space: pre; }
.gutter span { display: block; }
.gutter span.marked { color: var(--_fail); font-weight: 700; }
textarea.code { border: 0; margin: 0; resize: none; outline: none; padding: .5rem .6rem; background: transparent;
  color: inherit; font: inherit;
  line-height: 1.5; tab-size: 2; white-space: pre; overflow: auto; width: 100%; height: 100%; }
.editor:focus-within { outline: 2px solid var(--_focus); outline-offset: 1px; }
.editor.cm { display: block; }
.editor.cm .cm-editor { height: 100%; }
.editor.cm .cm-editor.cm-focused { outline: none; }
.editor.cm .cm-scroller { font-family: var(--_mono); line-height: 1.5; }
.editor.cm .cm-ffn-error-line { background: color-mix(in srgb, var(--_fail) 16%, transparent); }
.toolbar { display: flex; gap: .5rem; flex-wrap: wrap; margin: .6rem 0; align-items: center; }
button { font: inherit; font-size: .9rem; padding: .35rem .8rem; border-radius: 6px; border: 1px solid var(--_border);
  background: var(--_surface); color: inherit; cursor: pointer; }
button:focus-visible { outline: 2px solid var(--_focus); outline-offset: 1px; }
button:disabled { opacity: .55; cursor: default; }
button.run { background: var(--_accent); color: var(--_bg); border-color: transparent; }
button.link {
  border: 0; padding: 0; background: none; color: var(--_accent); text-decoration: underline; font-size: inherit;
}
.confirm { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; font-size: .9rem; padding: .4rem .6rem;
  border: 1px dashed var(--_border); border-radius: 6px; }
.confirm[hidden], .hints[hidden], .solution[hidden], [hidden] { display: none; }
.hints { margin: .4rem 0; padding-left: 1.2rem; }
.hints li { margin: .25rem 0; }
.results { margin-top: .5rem; }
.summary { font-weight: 600; margin: .3rem 0; }
.summary.pass { color: var(--_pass); }
.summary.fail { color: var(--_fail); }
.summary.setup { color: var(--_fg); border-left: 4px solid var(--_fire); background: var(--_surface);
  padding: .4rem .7rem; border-radius: 4px; font-weight: 400; }
.diagnosis { border-left: 4px solid var(--_fire); background: var(--_surface);
  padding: .4rem .7rem; margin: .5rem 0; border-radius: 4px; }
.diagnosis strong { display: block; }
ul.tests { list-style: none; padding: 0; margin: .3rem 0; font-size: .9rem; }
ul.tests li { padding: .15rem 0; }
ul.tests li .mark { display: inline-block; width: 1.3rem; font-weight: 700; }
ul.tests li.pass .mark { color: var(--_pass); }
ul.tests li:not(.pass) .mark { color: var(--_fail); }
ul.tests .detail {
  display: block; margin-left: 1.3rem; color: var(--_muted); font-family: var(--_mono); font-size: .82rem;
  white-space: pre-wrap;
}
.logs { font-size: .82rem; background: var(--_surface); padding: .4rem .6rem; border-radius: 4px;
  max-height: 12rem; overflow: auto; white-space: pre-wrap; }
.solution pre { background: var(--_surface); padding: .6rem; border-radius: 6px; overflow: auto; font-size: .85rem; }
.note { font-size: .82rem; color: var(--_muted); }
.notice { font-size: .85rem; color: var(--_fail); margin: .3rem 0; white-space: pre-line; }
.notice:empty { display: none; }
.note:empty { display: none; }
.progress { margin-top: .6rem; font-size: .85rem; }
.progress summary { cursor: pointer; color: var(--_muted); }
.progress-json { width: 100%; font-family: var(--_mono); font-size: .78rem; }
`;
